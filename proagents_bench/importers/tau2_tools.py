"""The agent tools of tau2-bench's own domains, each with the type tau2 gives it
(``@is_tool(ToolType.WRITE)``, ...), read from tau2-bench's source at commit
:data:`TAU2_COMMIT` by ``tests/importers/make_tau2_tool_types.py`` (generated:
do not edit). The importer records a call of a ``write`` tool as a side effect
(see :mod:`.tau2`).
"""

from __future__ import annotations

from typing import Dict, List

TAU2_COMMIT = "a2c024725189473d2d7cea3a5cfdbcc67478e41f"

DOMAIN_TOOLS: Dict[str, Dict[str, List[str]]] = {
    "airline": {
        "generic": [
            "calculate",
            "transfer_to_human_agents",
        ],
        "read": [
            "get_flight_status",
            "get_reservation_details",
            "get_user_details",
            "list_all_airports",
            "search_direct_flight",
            "search_onestop_flight",
        ],
        "write": [
            "book_reservation",
            "cancel_reservation",
            "send_certificate",
            "update_reservation_baggages",
            "update_reservation_flights",
            "update_reservation_passengers",
        ],
    },
    "banking_knowledge": {
        "generic": [
            "give_discoverable_user_tool",
            "transfer_to_human_agents",
            "unlock_discoverable_agent_tool",
        ],
        "read": [
            "KB_search",
            "KB_search_bm25",
            "KB_search_dense",
            "get_credit_card_accounts_by_user",
            "get_credit_card_transactions_by_user",
            "get_current_time",
            "get_referrals_by_user",
            "get_user_information_by_email",
            "get_user_information_by_id",
            "get_user_information_by_name",
            "grep",
            "list_discoverable_agent_tools",
            "shell",
        ],
        "write": [
            "call_discoverable_agent_tool",
            "change_user_email",
            "log_verification",
            "rewrite_context",
        ],
    },
    "mock": {
        "generic": [
            "transfer_to_human_agents",
        ],
        "read": [
            "get_users",
        ],
        "write": [
            "create_task",
            "update_task_status",
        ],
    },
    "retail": {
        "generic": [
            "calculate",
            "transfer_to_human_agents",
        ],
        "read": [
            "find_user_id_by_email",
            "find_user_id_by_name_zip",
            "get_item_details",
            "get_order_details",
            "get_product_details",
            "get_user_details",
            "list_all_product_types",
        ],
        "write": [
            "cancel_pending_order",
            "exchange_delivered_order_items",
            "modify_pending_order_address",
            "modify_pending_order_items",
            "modify_pending_order_payment",
            "modify_user_address",
            "return_delivered_order_items",
        ],
    },
    "telecom": {
        "generic": [
            "transfer_to_human_agents",
        ],
        "read": [
            "get_bills_for_customer",
            "get_customer_by_id",
            "get_customer_by_name",
            "get_customer_by_phone",
            "get_data_usage",
            "get_details_by_id",
        ],
        "write": [
            "disable_roaming",
            "enable_roaming",
            "refuel_data",
            "resume_line",
            "send_payment_request",
            "suspend_line",
        ],
    },
}
# Domains registered with the toolkit of another.
DOMAIN_TOOLS["telecom-workflow"] = DOMAIN_TOOLS["telecom"]
