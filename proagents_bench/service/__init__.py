"""The private-test service: the spec, the grader interface and the public view of the cases
are published; the test cases' answers stay on the server; teams submit their candidate's
records and get back what their feedback level allows, within a budget (see docs/service.md)."""
