"""Why a decision went as it did, task by task, from the harnesses' own traces: which tasks
are explained and which trials are compared (:mod:`.choice`), the traces read from the logs
at the records' trace references (:mod:`.reading`), the two trials set side by side
(:mod:`.comparing`), and the explanation as a document (:mod:`.explanation`). The gate never
imports this package; the ``explain`` command does."""
