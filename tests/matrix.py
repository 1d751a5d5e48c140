"""The matrix of every protocol against every feature (docs/matrix.md): each cell the tests (or the
benchmark row, or the docs sections) that exercise it, or an exemption with its reason, or, until
it is filled, what is missing. tests/test_matrix.py holds it to the registry, the tests and the
docs; `.venv/bin/python -m tests.matrix` writes docs/matrix.md from it."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "matrix.md"

FEATURES = {
    "positions": "positions",
    "poolDetails": "`poolDetails`",
    "history": "`positionsHistory` points",
    "flows": "flows and earnings",
    "risk": "risk",
    "rewards": "rewards",
    "accounts": "controlled accounts",
    "pastBlocks": "past blocks",
    "verify": "provenance and `verify`",
    "latency": "latency row",
    "docs": "docs page",
}
"""The columns, by key: what each protocol is held to."""


@dataclass(frozen=True)
class Done:
    """What exercises the cell, each as `path::name`: a test function (`tests/test_x.py::test_y`),
    a row of bench/latency.py (`bench/latency.py::its label`), or a section of a docs page
    (`docs/protocols/x.md::its heading`)."""

    refs: tuple[str, ...]

    def __init__(self, *refs: str) -> None:
        object.__setattr__(self, "refs", refs)


@dataclass(frozen=True)
class Exempt:
    """A cell the protocol has no use for, and why."""

    reason: str


@dataclass(frozen=True)
class Missing:
    """A cell not filled yet, and what it lacks: shown in the docs until it is done."""

    what: str


Cell = Done | Exempt | Missing

HISTORY = "tests/test_positions_history.py::test_every_point_is_the_answer_at_its_block"
KEPT_BLOCKS = "tests/test_past_blocks.py::test_each_kept_block_is_answered_as_it_was_then"
VERIFY = Done(
    "tests/test_verify.py::test_honest_answers_of_every_protocol_and_demo_wallet_verify",
    "tests/test_verify.py::test_a_portfolio_with_provenance_verifies_what_it_lists_and_every_empty_check",
)
"""The tests that ask every protocol of the devnet (each cell names them where no test of its own does more)."""
TOKEN_IN_ACCOUNT = (
    "tests/test_fault_schedules.py::test_a_token_held_by_a_controlled_account_is_answered_through_its_route"
)
"""A position in a controlled account, answered through its route: a token the wallet sends, one the
protocol's own transfer moves (a Comet supply, a Uniswap NFT), or one the account makes itself (an
EigenLayer deposit or an Aura or Convex Booster deposit through the DSProxy, a Fluid lending)."""
NO_LENDING = Exempt("it does not lend: no borrow, no risk")
SHARE_YIELD = Exempt("no reward: the yield is in the share's rate (apy)")
TOKEN_YIELD = Exempt("no reward: the yield is in the token's rate (apy)")
VAULT_DETAILS = Done("tests/test_vault_style.py::test_each_vault_and_token_as_a_pool_shows_what_its_positions_show")
"""A vault or token of a vault-style section as a pool (docs/protocols/vault-style.md)."""
TOKEN_DETAILS = Done(
    "tests/test_liquid_staking.py::test_each_token_as_a_pool_is_its_supply_at_the_rate_its_positions_use"
)
"""A liquid staking token as a pool, with its way out's figures."""


def row(**cells: Cell) -> dict[str, Cell]:
    """A protocol's cells, in FEATURES' order: those given, and where none is given the tests that
    ask every protocol of the devnet (its points and `verify`; test_matrix.py holds the protocol to
    their inputs)."""
    shared: dict[str, Cell] = {"history": Done(HISTORY), "verify": VERIFY}
    return {key: cells[key] if key in cells else shared[key] for key in FEATURES if key in cells or key in shared}


def page(name: str, *sections: str) -> Done:
    """Sections of a protocol's page."""
    return Done(*(f"docs/protocols/{name}.md::{section}" for section in sections))


CELLS: dict[str, dict[str, Cell]] = {
    "morpho": row(
        positions=Done(
            "tests/test_morpho.py::test_market_positions_match_morpho_balances_lib",
            "tests/test_morpho.py::test_vault_positions_and_apys",
        ),
        poolDetails=Done(
            "tests/test_pool_details.py::test_a_market_matches_morpho_balances_lib_and_the_wallet_query",
            "tests/test_pool_details.py::test_a_v1_vault_with_its_allocations_as_the_chain_and_the_wallet_query_have_them",
        ),
        flows=Done(
            "tests/test_history_flows.py::test_flows_are_the_actions_and_earnings_add_up",
            "tests/test_history_flows.py::test_flows_in_usd_and_a_settled_range_costs_no_logs_the_second_time",
        ),
        risk=Done(
            "tests/test_risk.py::test_morpho_liquidates_from_the_answered_price_down",
            "tests/test_risk.py::test_a_chainlink_oracles_last_update_is_its_oldest_feeds",
        ),
        rewards=Exempt(
            "Merkl and URD rewards are Merkle claims kept off-chain: nothing to read at a block "
            "(docs/protocols/morpho.md)"
        ),
        accounts=Done(
            "tests/test_accounts.py::test_each_route_answers_the_accounts_the_wallet_controls_after_its_own_entry",
            "tests/test_accounts.py::test_an_account_given_away_is_answered_up_to_the_block_before",
        ),
        pastBlocks=Done(KEPT_BLOCKS, HISTORY),
        verify=Done(
            "tests/test_verify.py::test_a_changed_figure_a_changed_read_and_another_chain_are_caught",
            "tests/test_verify.py::test_a_series_with_provenance_verifies_point_by_point",
        ),
        latency=Done(
            "bench/latency.py::morpho (saver: markets, V1 and V2 vaults)", "bench/latency.py::morpho (depositor)"
        ),
        docs=page(
            "morpho",
            "Wallet positions",
            "Flows and earnings (`positionsHistory`)",
            "Pool details",
            "Probes (controlled accounts)",
            "Addresses",
        ),
    ),
    "aave": row(
        positions=Done(
            "tests/test_aave.py::test_borrower_in_two_markets_of_one_chain",
            "tests/test_aave.py::test_supply_only_wallet_has_no_health_factor",
        ),
        poolDetails=Done(
            "tests/test_aave.py::test_a_market_by_its_addresses_provider_or_pool_with_every_reserve",
            "tests/test_aave36_world.py::test_pool_details_of_the_v3_6_market",
        ),
        flows=Done(
            "tests/test_history_flows.py::test_aave_flows_are_the_actions_and_earnings_add_up",
            "tests/test_history_flows.py::test_aave_flows_are_valued_by_the_markets_oracle",
        ),
        risk=Done(
            "tests/test_risk.py::test_aave_liquidates_from_the_answered_price_down",
            "tests/test_risk.py::test_aave_a_category_source_liquidates_where_the_floored_threshold_steps_down",
        ),
        rewards=Done(
            "tests/test_aave.py::test_rewards_are_the_controllers_own",
            "tests/test_history_rewards.py::test_aave_rewards_claimed_are_flows_and_what_accrued_is_earned",
        ),
        accounts=Done(
            "tests/test_fault_schedules.py::test_every_protocol_answers_every_demo_wallet_and_any_address",
            "tests/test_portfolio.py::test_every_demo_wallets_portfolio_is_its_per_protocol_answers_field_for_field",
        ),
        pastBlocks=Done(KEPT_BLOCKS, HISTORY),
        verify=Done(
            "tests/test_verify.py::test_an_answer_verifies_on_another_node_of_the_chain",
            "tests/test_verify.py::test_honest_answers_of_every_protocol_and_demo_wallet_verify",
        ),
        latency=Done("bench/latency.py::aave (borrower)", "bench/latency.py::aave (controller: a DSA's supply)"),
        docs=page("aave", "Wallet positions", "Flows and earnings (`positionsHistory`)", "Pool details", "Addresses"),
    ),
    "spark": row(
        positions=Done(
            "tests/test_aave.py::test_sparklend_is_read_as_aave_on_its_own_markets",
            "tests/test_vault_style.py::test_every_field_for_a_holder_of_each_protocol",
        ),
        poolDetails=Done("tests/test_aave.py::test_sparklend_is_read_as_aave_on_its_own_markets"),
        flows=Done("tests/test_history_flows.py::test_spark_flows_are_read_as_aaves_from_its_own_pool"),
        risk=Done("tests/test_aave.py::test_sparklend_risk_is_its_pools_own"),
        rewards=Done("tests/test_aave.py::test_sparklend_rewards_are_its_controllers_own"),
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(
            "tests/test_lenses.py::test_the_one_call_path_answers_as_the_rounds_do",
            HISTORY,
        ),
        latency=Done("bench/latency.py::spark (borrower)"),
        docs=page("spark", "Formulas", "Savings vaults (Spark Vaults V2)", "Addresses"),
    ),
    "compound": row(
        positions=Done(
            "tests/test_compound.py::test_supply_borrow_collateral_and_rewards",
            "tests/test_compound.py::test_a_collateral_without_price_leaves_its_usd_and_the_capacity_null",
        ),
        poolDetails=Done("tests/test_compound.py::test_pool_details_of_a_comet_priced_in_eth"),
        flows=Done(
            "tests/test_history_compound.py::test_every_kind_of_compound_flow",
            "tests/test_history_compound.py::test_compound_flows_follow_comets_arithmetic_and_earnings_add_up",
        ),
        risk=Done(
            "tests/test_risk.py::test_comet_liquidates_from_the_answered_price_down",
            "tests/test_compound.py::test_supply_borrow_collateral_and_rewards",
        ),
        rewards=Done(
            "tests/test_compound.py::test_supply_borrow_collateral_and_rewards",
            "tests/test_history_compound.py::test_compound_rewards_claimed_in_the_market_that_paid_them",
        ),
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(KEPT_BLOCKS, HISTORY),
        latency=Done("bench/latency.py::compound (borrower)"),
        docs=page(
            "compound",
            "Wallet positions",
            "Flows and earnings (`positionsHistory`)",
            "Pool details",
            "Probes (controlled accounts)",
            "Addresses",
        ),
    ),
    "fluid": row(
        positions=Done(
            "tests/test_fluid.py::test_a_lenders_ftoken_with_its_rates",
            "tests/test_fluid.py::test_a_borrowers_vault_nfts_standard_smart_and_liquidated",
        ),
        poolDetails=Done(
            "tests/test_fluid.py::test_pool_details_of_an_ftoken_and_of_vaults",
            "tests/test_fluid.py::test_a_native_eth_vaults_pool_details_name_and_price_ether",
        ),
        flows=Done("tests/test_history_fluid.py::test_fluid_vault_operations_are_flows"),
        risk=Done(
            "tests/test_fluid.py::test_a_vault_nfts_risk_solves_the_vaults_own_test",
            "tests/test_fluid.py::test_a_partly_liquidated_nft_is_priced_at_its_branchs_tick",
        ),
        rewards=Done(
            "tests/test_fluid.py::test_a_lenders_ftoken_with_its_rates",
            "tests/test_fluid.py::test_pool_details_of_an_ftoken_and_of_vaults",
        ),
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(KEPT_BLOCKS, HISTORY),
        latency=Done("bench/latency.py::fluid (borrower)"),
        docs=page("fluid", "Wallet positions", "Flows and earnings (`positionsHistory`)", "Pool details", "Addresses"),
    ),
    "pendle": row(
        positions=Done(
            "tests/test_pendle.py::test_pt_yt_lp_and_sy_positions_equal_pendles_own_views",
            "tests/test_pendle.py::test_a_yt_sold_after_interest_accrued_is_listed_with_the_interest_due",
        ),
        poolDetails=Done("tests/test_pendle.py::test_pool_details_of_a_live_and_an_expired_market_equal_router_static"),
        flows=Done(
            "tests/test_positions_history.py::test_pendle_tokens_sent_and_a_yts_due_claimed_are_flows",
            "tests/test_positions_history.py::test_every_protocol_gives_flows_and_earnings_that_add_up",
        ),
        risk=NO_LENDING,
        rewards=Done(
            "tests/test_pendle.py::test_pt_yt_lp_and_sy_positions_equal_pendles_own_views",
            "tests/test_pendle.py::test_a_broken_sy_leaves_positions_listed_with_its_figures_null_and_named",
        ),
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(KEPT_BLOCKS, HISTORY),
        latency=Done("bench/latency.py::pendle (saver)"),
        docs=page("pendle", "Wallet positions", "Flows and earnings (`positionsHistory`)", "Pool details", "Addresses"),
    ),
    "lido": row(
        positions=Done(
            "tests/test_lido.py::test_steth_and_wsteth_with_their_steth_usd_and_apy",
            "tests/test_lido.py::test_withdrawal_requests_pay_what_the_queue_says",
        ),
        poolDetails=Done("tests/test_lido.py::test_steth_and_wsteth_as_pools_with_the_queues_totals"),
        flows=Done(
            "tests/test_history_flows.py::test_lido_flows_are_in_steth_and_rebases_are_earned",
            "tests/test_history_flows.py::test_lido_withdrawal_requests_made_claimed_and_sent",
        ),
        risk=NO_LENDING,
        rewards=Exempt("no reward: the yield is stETH's rebase and wstETH's rate (apy)"),
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(
            "tests/test_lenses.py::test_the_one_call_path_answers_as_the_rounds_do",
            HISTORY,
        ),
        latency=Done(
            "bench/latency.py::lido (saver: stETH, wstETH)", "bench/latency.py::lido (borrower: withdrawal requests)"
        ),
        docs=page(
            "lido",
            "Formulas (every read at `blockNumber`)",
            "Pool details",
            "Flows and earnings (`positionsHistory`)",
            "Probes (controlled accounts)",
            "Addresses",
        ),
    ),
    "maker": row(
        positions=Done(
            "tests/test_maker.py::test_a_vault_through_a_dsproxy_is_the_proxys_entry_with_every_figure_from_the_contracts",
            "tests/test_maker.py::test_vaults_and_urns_the_wallet_owns_itself_and_a_staking_engine_urn",
        ),
        poolDetails=Done("tests/test_maker.py::test_each_ilk_as_a_pool_by_its_bytes32_name_with_what_its_vaults_show"),
        flows=Done("tests/test_history_maker.py::test_each_vaults_flows_are_its_actions_and_each_point_adds_up"),
        risk=Done(
            "tests/test_maker.py::test_the_liquidation_price_is_where_the_dogs_bark_starts_to_succeed",
            "tests/test_maker.py::test_a_vault_through_a_dsproxy_is_the_proxys_entry_with_every_figure_from_the_contracts",
        ),
        rewards=Done(
            "tests/test_maker.py::test_a_staking_engine_urns_farm_and_what_it_has_earned",
            "tests/test_maker.py::test_the_test_farm_is_skys_staking_rewards",
        ),
        accounts=Done(
            "tests/test_maker.py::test_a_vault_through_a_dsproxy_is_the_proxys_entry_with_every_figure_from_the_contracts",
            "tests/test_maker.py::test_the_liquidation_price_is_where_the_dogs_bark_starts_to_succeed",
        ),
        pastBlocks=Done(
            "tests/test_portfolio.py::test_a_portfolio_at_a_past_time_is_the_answers_at_the_last_block_before_it",
            HISTORY,
        ),
        latency=Done("bench/latency.py::maker (controller: a vault through its DSProxy)"),
        docs=page(
            "maker",
            "Formulas (every read at `blockNumber`)",
            "Flows and earnings (`positionsHistory`)",
            "Pool details",
            "Addresses",
            "Not yet",
        ),
    ),
    "euler": row(
        positions=Done(
            "tests/test_euler.py::test_the_owner_and_its_sub_accounts_each_answer_their_vaults",
            "tests/test_euler.py::test_collateral_and_debt_are_valued_as_the_router_quotes_their_amounts",
        ),
        poolDetails=Done("tests/test_euler.py::test_pool_details_of_a_vault_and_a_clear_error_for_another_address"),
        flows=Done(
            "tests/test_history_euler.py::test_each_accounts_flows_are_its_actions_and_its_earnings_add_up",
            "tests/test_history_euler.py::test_the_test_vault_declares_evks_events_as_the_flows_read_them",
        ),
        risk=Done(
            "tests/test_euler.py::test_the_risk_is_the_vaults_own_and_its_liquidation_price_where_check_liquidation_turns",
            "tests/test_euler.py::test_collateral_and_debt_are_valued_as_the_router_quotes_their_amounts",
        ),
        rewards=Done(
            "tests/test_euler.py::test_rewards_are_the_reward_streams_own",
            "tests/test_euler.py::test_a_reward_without_a_price_is_named_and_its_apr_null",
            "tests/test_euler.py::test_the_test_reward_streams_and_the_lens_declare_the_published_interface",
        ),
        accounts=Done(
            "tests/test_euler.py::test_the_owner_and_its_sub_accounts_each_answer_their_vaults",
            "tests/test_euler.py::test_the_option_answers_the_owner_alone",
        ),
        pastBlocks=Done(
            "tests/test_portfolio.py::test_a_portfolio_at_a_past_time_is_the_answers_at_the_last_block_before_it",
            HISTORY,
        ),
        latency=Done("bench/latency.py::euler (controller: two sub-accounts, one borrowing)"),
        docs=page(
            "euler",
            "Wallet positions (every read at `blockNumber`)",
            "Rewards",
            "Flows and earnings (`positionsHistory`)",
            "Pool details",
            "Probes (controlled accounts)",
            "Addresses",
        ),
    ),
    "uniswap": row(
        positions=Done(
            "tests/test_uniswap.py::test_every_position_at_every_step_equals_the_sdk_and_the_managers_own_answers",
            "tests/test_uniswap.py::test_every_v4_position_at_every_step_equals_the_v4_sdk_and_the_managers_own_payouts",
        ),
        poolDetails=Done(
            "tests/test_uniswap.py::test_pool_details_are_the_pools_own_state",
            "tests/test_uniswap.py::test_v4_pool_details_by_pool_id",
        ),
        flows=Done(
            "tests/test_history_uniswap.py::test_uniswap_v3_flows_fees_and_impermanent_loss",
            "tests/test_history_uniswap.py::test_uniswap_v4_flows_fees_and_impermanent_loss",
        ),
        risk=NO_LENDING,
        rewards=Exempt("no reward: uncollected fees are answered as REWARD legs, tested with its positions"),
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(
            "tests/test_uniswap.py::test_every_position_at_every_step_equals_the_sdk_and_the_managers_own_answers",
            HISTORY,
        ),
        verify=Done(
            "tests/test_verify.py::test_an_answer_verifies_on_another_node_of_the_chain",
            "tests/test_verify.py::test_honest_answers_of_every_protocol_and_demo_wallet_verify",
        ),
        latency=Done("bench/latency.py::uniswap (saver: 6 v3 and 6 v4 positions)"),
        docs=page(
            "uniswap",
            "Which positions",
            "Formulas (every read at `blockNumber`)",
            "Flows and earnings (`positionsHistory`)",
            "Pool details",
            "Probes (controlled accounts)",
            "Addresses",
        ),
    ),
    "neutrl": row(
        positions=Done(
            "tests/test_vault_style.py::test_every_field_for_a_holder_of_each_protocol",
            "tests/test_vault_style.py::test_a_cooldown_alone_is_a_position",
        ),
        poolDetails=VAULT_DETAILS,
        flows=Done(
            "tests/test_history_vaults.py::test_a_cooldown_vault_without_a_silo_is_named_not_guessed",
            "tests/test_positions_history.py::test_every_protocol_gives_flows_and_earnings_that_add_up",
        ),
        risk=NO_LENDING,
        rewards=SHARE_YIELD,
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(KEPT_BLOCKS, HISTORY),
        latency=Done("bench/latency.py::neutrl (saver)"),
        docs=page("neutrl", "Formulas (every read at `blockNumber`)", "Addresses"),
    ),
    "midas": row(
        positions=Done(
            "tests/test_vault_style.py::test_every_field_for_a_holder_of_each_protocol",
            "tests/test_vault_style.py::test_a_pruned_endpoint_nulls_the_apys_with_a_warning_and_is_asked_once",
        ),
        poolDetails=VAULT_DETAILS,
        flows=Done("tests/test_positions_history.py::test_every_protocol_gives_flows_and_earnings_that_add_up"),
        risk=NO_LENDING,
        rewards=SHARE_YIELD,
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(KEPT_BLOCKS, HISTORY),
        latency=Done("bench/latency.py::midas (saver)"),
        docs=page("midas", "Formulas (every read at `blockNumber`)", "Addresses"),
    ),
    "avantis": row(
        positions=Done(
            "tests/test_vault_style.py::test_every_field_for_a_holder_of_each_protocol",
            "tests/test_vault_style.py::test_the_apy_compares_with_the_block_a_week_earlier",
        ),
        poolDetails=VAULT_DETAILS,
        flows=Done("tests/test_positions_history.py::test_every_protocol_gives_flows_and_earnings_that_add_up"),
        risk=NO_LENDING,
        rewards=SHARE_YIELD,
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(KEPT_BLOCKS, HISTORY),
        latency=Done("bench/latency.py::avantis (saver)"),
        docs=page("avantis", "Formulas (every read at `blockNumber`)", "Addresses"),
    ),
    "avant": row(
        positions=Done(
            "tests/test_vault_style.py::test_every_field_for_a_holder_of_each_protocol",
            "tests/test_vault_style.py::test_a_cooldown_alone_is_a_position",
        ),
        poolDetails=VAULT_DETAILS,
        flows=Done(
            "tests/test_history_vaults.py::test_the_worlds_cooldown_made_by_the_entry_points",
            "tests/test_positions_history.py::test_every_protocol_gives_flows_and_earnings_that_add_up",
        ),
        risk=NO_LENDING,
        rewards=SHARE_YIELD,
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(KEPT_BLOCKS, HISTORY),
        latency=Done("bench/latency.py::avant (saver: a vault and its cooldown)"),
        docs=page("avant", "Formulas (every read at `blockNumber`)", "Addresses"),
    ),
    "ethena": row(
        positions=Done("tests/test_vault_style.py::test_every_field_for_a_holder_of_each_protocol"),
        poolDetails=VAULT_DETAILS,
        flows=Done("tests/test_history_vaults.py::test_a_cooldown_started_and_unstaked"),
        risk=NO_LENDING,
        rewards=SHARE_YIELD,
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(
            "tests/test_lenses.py::test_the_one_call_path_answers_as_the_rounds_do",
            HISTORY,
        ),
        latency=Done("bench/latency.py::ethena (saver)"),
        docs=page("ethena", "Formulas (every read at `blockNumber`)", "Addresses"),
    ),
    "sky": row(
        positions=Done(
            "tests/test_vault_style.py::test_every_field_for_a_holder_of_each_protocol",
            "tests/test_vault_style.py::test_a_pruned_endpoint_nulls_the_apys_with_a_warning_and_is_asked_once",
        ),
        poolDetails=VAULT_DETAILS,
        flows=Done("tests/test_history_vaults.py::test_sky_savings_vaults_minted_and_sent_are_flows"),
        risk=NO_LENDING,
        rewards=SHARE_YIELD,
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(
            "tests/test_lenses.py::test_the_one_call_path_answers_as_the_rounds_do",
            HISTORY,
        ),
        latency=Done("bench/latency.py::sky (saver)"),
        docs=page("sky", "Formulas (every read at `blockNumber`)", "Addresses"),
    ),
    "erc4626": row(
        positions=Done("tests/test_vault_style.py::test_every_field_for_a_holder_of_each_protocol"),
        poolDetails=VAULT_DETAILS,
        flows=Done(
            "tests/test_history_flows.py::test_flows_are_the_actions_and_earnings_add_up",
            "tests/test_history_flows.py::test_a_vault_entered_and_left_between_the_points",
        ),
        risk=NO_LENDING,
        rewards=SHARE_YIELD,
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(
            "tests/test_lenses.py::test_the_one_call_path_answers_as_the_rounds_do",
            HISTORY,
        ),
        latency=Done("bench/latency.py::erc4626 (saver: a vault the addresses data lists)"),
        docs=page("erc4626", "Listing a vault", "Formulas (every read at `blockNumber`)"),
    ),
    "etherfi": row(
        positions=Done(
            "tests/test_liquid_staking.py::test_eeth_and_weeth_in_ether_by_the_pools_rate",
            "tests/test_liquid_staking.py::test_withdraw_request_nfts_found_by_their_transfers_pay_what_the_nft_says",
        ),
        poolDetails=TOKEN_DETAILS,
        flows=Done(
            "tests/test_history_liquid_staking.py::test_etherfi_requests_are_flows_and_a_claim_pays_what_its_event_says",
            "tests/test_history_liquid_staking.py::test_token_transfers_are_flows_in_ether_and_the_rest_is_earned",
        ),
        risk=NO_LENDING,
        rewards=TOKEN_YIELD,
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(
            "tests/test_lenses.py::test_the_one_call_path_answers_as_the_rounds_do",
            HISTORY,
        ),
        latency=Done(
            "bench/latency.py::etherfi (saver: eETH, weETH)",
            "bench/latency.py::etherfi (borrower: withdraw request NFTs)",
        ),
        docs=page(
            "etherfi",
            "Formulas (every read at `blockNumber`)",
            "Pool details",
            "Probes (controlled accounts)",
            "Addresses",
        ),
    ),
    "rocketpool": row(
        positions=Done(
            "tests/test_liquid_staking.py::test_reth_in_ether_by_its_rate_with_a_burn_the_collateral_caps",
            "tests/test_liquid_staking.py::test_a_small_reth_holder_can_burn_all_of_it",
        ),
        poolDetails=TOKEN_DETAILS,
        flows=Done(
            "tests/test_history_liquid_staking.py::test_token_transfers_are_flows_in_ether_and_the_rest_is_earned"
        ),
        risk=NO_LENDING,
        rewards=TOKEN_YIELD,
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(
            "tests/test_lenses.py::test_the_one_call_path_answers_as_the_rounds_do",
            HISTORY,
        ),
        latency=Done("bench/latency.py::rocketpool (saver: rETH, its burn)"),
        docs=page(
            "rocketpool",
            "Formulas (every read at `blockNumber`)",
            "Pool details",
            "Probes (controlled accounts)",
            "Addresses",
        ),
    ),
    "renzo": row(
        positions=Done(
            "tests/test_liquid_staking.py::test_ezeth_in_ether_by_what_the_restake_manager_says_backs_it",
            "tests/test_liquid_staking.py::test_renzo_withdrawal_requests_as_the_withdraw_queue_keeps_them",
        ),
        poolDetails=TOKEN_DETAILS,
        flows=Done(
            "tests/test_history_liquid_staking.py::test_renzo_requests_are_followed_by_the_queues_own_events",
            "tests/test_history_liquid_staking.py::test_token_transfers_are_flows_in_ether_and_the_rest_is_earned",
        ),
        risk=NO_LENDING,
        rewards=TOKEN_YIELD,
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(
            "tests/test_lenses.py::test_the_one_call_path_answers_as_the_rounds_do",
            HISTORY,
        ),
        latency=Done(
            "bench/latency.py::renzo (saver: ezETH)",
            "bench/latency.py::renzo (borrower: WithdrawQueue requests in ETH and stETH)",
        ),
        docs=page(
            "renzo",
            "Formulas (every read at `blockNumber`)",
            "Flows and earnings (`positionsHistory`)",
            "Pool details",
            "Addresses",
        ),
    ),
    "kelp": row(
        positions=Done(
            "tests/test_liquid_staking.py::test_rseth_in_ether_by_kelps_oracle",
            "tests/test_liquid_staking.py::test_kelp_withdrawal_requests_as_the_withdrawal_manager_keeps_them",
        ),
        poolDetails=TOKEN_DETAILS,
        flows=Done(
            "tests/test_history_liquid_staking.py::test_kelp_requests_are_flows_and_unlocking_is_what_they_earn",
            "tests/test_history_liquid_staking.py::test_token_transfers_are_flows_in_ether_and_the_rest_is_earned",
        ),
        risk=NO_LENDING,
        rewards=TOKEN_YIELD,
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(
            "tests/test_lenses.py::test_the_one_call_path_answers_as_the_rounds_do",
            HISTORY,
        ),
        latency=Done("bench/latency.py::kelp (saver: rsETH)"),
        docs=page("kelp", "Formulas (every read at `blockNumber`)", "Pool details", "Addresses"),
    ),
    "balancer": row(
        positions=Done(
            "tests/test_balancer.py::test_bpt_in_a_weighted_and_a_composable_stable_pool_and_a_gauge_stake",
            "tests/test_balancer.py::test_bpt_of_v3_weighted_and_stable_pools_held_and_staked",
            "tests/test_balancer.py::test_an_lbp_is_read_by_its_own_views_before_and_during_its_sale",
            "tests/test_balancer.py::test_a_fixed_price_lbp_is_read_by_its_own_views_before_and_during_its_sale",
            "tests/test_balancer.py::test_gyro_and_reclamm_pools_are_named_unsupported_and_their_bpt_valued_by_the_vault",
        ),
        poolDetails=Done(
            "tests/test_balancer.py::test_each_pool_with_its_gauges_as_the_vaults_and_the_positions_have_it"
        ),
        flows=Done(
            "tests/test_history_balancer.py::test_flows_over_the_worlds_history_are_its_actions_and_add_up",
            "tests/test_history_balancer.py::test_the_events_the_flows_read_are_balancers_published_ones",
        ),
        risk=NO_LENDING,
        rewards=Done("tests/test_balancer.py::test_bpt_in_a_weighted_and_a_composable_stable_pool_and_a_gauge_stake"),
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(
            "tests/test_lenses.py::test_the_one_call_path_answers_as_the_rounds_do",
            HISTORY,
        ),
        latency=Done(
            "bench/latency.py::balancer (saver: v2 weighted and composable stable BPT, v3 weighted and stable BPT, "
            "2 gauge stakes)"
        ),
        docs=page(
            "balancer",
            "Discovery",
            "Formulas (every read at `blockNumber`)",
            "Flows and earnings (`positionsHistory`)",
            "Pool details",
            "Probes (controlled accounts)",
            "Addresses",
        ),
    ),
    "eigenlayer": row(
        positions=Done(
            "tests/test_eigenlayer.py::test_restaked_shares_with_slashing_applied_and_the_operator",
            "tests/test_eigenlayer.py::test_queued_withdrawals_with_the_block_they_complete_from",
        ),
        poolDetails=Done("tests/test_eigenlayer.py::test_each_strategy_as_a_pool_holds_its_total_shares_in_its_token"),
        flows=Done(
            "tests/test_history_eigenlayer.py::test_deposits_withdrawals_slashing_and_the_pod_are_flows_and_earnings_add_up",
            "tests/test_history_eigenlayer.py::test_a_strategy_whose_views_fail_names_its_legs_and_the_rest_stand",
        ),
        risk=NO_LENDING,
        rewards=Exempt(
            "rewards are Merkle claims against the roots the RewardsCoordinator posts: what an earner may claim is in "
            "EigenLayer's off-chain distribution, nothing to read at a block (docs/protocols/eigenlayer.md)"
        ),
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(KEPT_BLOCKS, HISTORY),
        latency=Done(
            "bench/latency.py::eigenlayer (saver: 2 strategies, 2 queued withdrawals)",
            "bench/latency.py::eigenlayer (borrower: an EigenPod, a queued withdrawal)",
        ),
        docs=page(
            "eigenlayer",
            "Formulas (every read at `blockNumber`)",
            "Flows and earnings (`positionsHistory`)",
            "Pool details",
            "Probes (controlled accounts)",
            "Addresses",
        ),
    ),
    "aura": row(
        positions=Done(
            "tests/test_aura.py::test_a_deposit_with_its_pool_share_bal_aura_and_an_extra_reward",
            "tests/test_aura.py::test_a_deposit_of_balancer_v3_bpt_is_valued_as_the_v3_vault_exits",
        ),
        poolDetails=Done("tests/test_aura.py::test_each_booster_pool_by_its_reward_pool_with_its_rates_and_staked_bpt"),
        flows=Done(
            "tests/test_history_aura.py::test_flows_over_the_worlds_history_are_its_actions_and_add_up",
            "tests/test_history_aura.py::test_the_test_contracts_declare_auras_events_as_the_flows_read_them",
        ),
        risk=NO_LENDING,
        rewards=Done(
            "tests/test_aura.py::test_a_deposit_with_its_pool_share_bal_aura_and_an_extra_reward",
            "tests/test_aura.py::test_a_deposit_in_the_earlier_booster_earns_bal_and_no_aura",
        ),
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(
            "tests/test_lenses.py::test_the_one_call_path_answers_as_the_rounds_do",
            HISTORY,
        ),
        latency=Done(
            "bench/latency.py::aura (saver: deposits in the current and the 2022 Booster, BAL, AURA, an extra reward)"
        ),
        docs=page(
            "aura",
            "Formulas (every read at `blockNumber`)",
            "Flows and earnings (`positionsHistory`)",
            "Pool details",
            "Addresses",
            "Devnet",
        ),
    ),
    "curve": row(
        positions=Done(
            "tests/test_curve.py::test_lp_in_a_stableswap_and_a_cryptoswap_pool_with_a_gauge_stake",
            "tests/test_curve.py::test_the_ng_crypto_pools_pay_on_one_lp_unit_less_but_for_the_whole_supply",
        ),
        poolDetails=Done("tests/test_curve.py::test_each_pool_as_its_factory_or_registry_lists_it_with_its_gauge"),
        flows=Done(
            "tests/test_history_curve.py::test_lp_stakes_removals_and_claims_are_flows_and_add_up",
            "tests/test_history_curve.py::test_a_pool_entered_and_left_between_the_points_is_named",
            "tests/test_history_curve.py::test_the_test_contracts_declare_curves_events_as_the_flows_read_them",
        ),
        risk=NO_LENDING,
        rewards=Done(
            "tests/test_curve.py::test_lp_in_a_stableswap_and_a_cryptoswap_pool_with_a_gauge_stake",
            "tests/test_curve.py::test_a_stake_alone_is_a_position_and_claimable_tokens_is_called_as_it_writes",
        ),
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(
            "tests/test_lenses.py::test_the_one_call_path_answers_as_the_rounds_do",
            HISTORY,
        ),
        latency=Done(
            "bench/latency.py::curve (saver: stableswap-ng, cryptoswap, main and crypto registry pools, "
            "2 gauge stakes)",
            "bench/latency.py::curve (borrower: a gauge stake alone)",
        ),
        docs=page(
            "curve",
            "Pools: Curve's own factories, never a hand list",
            "The scan",
            "Formulas (every read at `blockNumber`)",
            "Flows and earnings (`positionsHistory`)",
            "Pool details",
            "Addresses",
        ),
    ),
    "convex": row(
        positions=Done("tests/test_convex.py::test_deposits_with_their_coins_crv_cvx_and_extra_reward"),
        poolDetails=Done("tests/test_convex.py::test_a_booster_pool_by_its_reward_pool_with_its_deposits_and_rates"),
        flows=Done(
            "tests/test_history_convex.py::test_deposits_withdrawals_stakes_and_claims_are_flows_and_add_up",
            "tests/test_history_convex.py::test_the_test_contracts_declare_convexs_events_as_the_flows_read_them",
        ),
        risk=NO_LENDING,
        rewards=Done(
            "tests/test_convex.py::test_deposits_with_their_coins_crv_cvx_and_extra_reward",
            "tests/test_convex.py::test_cvx_minted_follows_cvx_sols_cliffs",
        ),
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(
            "tests/test_lenses.py::test_the_one_call_path_answers_as_the_rounds_do",
            HISTORY,
        ),
        latency=Done("bench/latency.py::convex (saver: 2 deposits, CRV, CVX, an extra reward)"),
        docs=page(
            "convex",
            "Pools: the Booster's own list",
            "Formulas (every read at `blockNumber`)",
            "Flows and earnings (`positionsHistory`)",
            "Pool details",
            "Addresses",
        ),
    ),
    "pancakeswap": row(
        positions=Done(
            "tests/test_pancakeswap.py::test_every_position_held_or_staked_equals_the_sdk_and_the_managers_own_answers",
            "tests/test_pancakeswap.py::test_held_and_staked_nfts_are_read_in_one_round_of_two_lens_calls",
        ),
        poolDetails=Done("tests/test_pancakeswap.py::test_pool_details_are_the_pools_own_state"),
        flows=Done(
            "tests/test_history_pancakeswap.py::test_staking_moves_nothing_and_harvests_take_from_the_cake_legs"
        ),
        risk=NO_LENDING,
        rewards=Done("tests/test_pancakeswap.py::test_each_staked_nft_earns_the_farms_own_pending_cake"),
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(
            "tests/test_pancakeswap.py::test_every_position_held_or_staked_equals_the_sdk_and_the_managers_own_answers",
            HISTORY,
        ),
        latency=Done("bench/latency.py::pancakeswap (saver: 6 held and 2 staked positions, CAKE)"),
        docs=page(
            "pancakeswap",
            "Which positions",
            "Formulas (every read at `blockNumber`)",
            "Flows and earnings (`positionsHistory`)",
            "Pool details",
            "Probes (controlled accounts)",
            "Addresses",
        ),
    ),
    "venus": row(
        positions=Done(
            "tests/test_venus.py::test_amounts_are_the_markets_own_at_the_block",
            "tests/test_venus_pools.py::test_amounts_factors_and_apys_are_the_markets_own",
            "tests/test_venus.py::test_an_account_is_read_in_one_round",
        ),
        poolDetails=Done(
            "tests/test_venus.py::test_the_pool_by_its_comptroller_or_a_market_by_its_vtoken",
            "tests/test_venus_pools.py::test_an_isolated_pool_by_its_comptroller_or_a_market_by_its_vtoken",
        ),
        flows=Done("tests/test_history_venus.py::test_the_markets_events_are_the_flows_and_earnings_add_up"),
        risk=Done(
            "tests/test_venus.py::test_the_liquidation_price_is_where_the_comptroller_finds_a_shortfall",
            "tests/test_venus_pools.py::test_the_liquidation_price_is_where_the_comptroller_finds_a_shortfall",
        ),
        rewards=Done(
            "tests/test_venus.py::test_the_xvs_owed_is_what_a_claim_pays_at_the_block",
            "tests/test_venus_pools.py::test_each_distributor_owes_what_its_claim_pays_at_the_block",
        ),
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(HISTORY),
        latency=Done("bench/latency.py::venus (borrower: the core pool and two isolated pools)"),
        docs=page(
            "venus",
            "Formulas (every read at `blockNumber`)",
            "Flows and earnings (`positionsHistory`)",
            "Pool details",
            "Addresses",
        ),
    ),
    "compound-v2": row(
        positions=Done(
            "tests/test_compound_v2.py::test_amounts_are_the_markets_own_at_the_block",
            "tests/test_compound_v2.py::test_an_account_is_read_in_one_round",
        ),
        poolDetails=Done("tests/test_compound_v2.py::test_the_comptroller_or_a_ctoken_as_a_pool"),
        flows=Done("tests/test_history_compound_v2.py::test_the_ctokens_events_are_the_flows_and_earnings_add_up"),
        risk=Done("tests/test_compound_v2.py::test_the_liquidation_price_is_where_the_comptroller_finds_a_shortfall"),
        rewards=Done("tests/test_compound_v2.py::test_the_comp_owed_is_what_a_claim_pays_at_the_block"),
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(HISTORY),
        latency=Done("bench/latency.py::compound-v2 (borrower: cETH collateral, USDC and DAI debts, COMP)"),
        docs=page(
            "compound-v2",
            "Formulas (every read at `blockNumber`)",
            "Flows and earnings (`positionsHistory`)",
            "Addresses",
        ),
    ),
    "liquity": row(
        positions=Done(
            "tests/test_liquity.py::test_a_trove_is_the_trove_managers_own_at_the_block",
            "tests/test_liquity.py::test_a_deposit_and_its_gains_are_the_stability_pools_own",
            "tests/test_liquity.py::test_an_account_is_read_in_one_round",
        ),
        poolDetails=Done("tests/test_liquity.py::test_the_system_as_a_pool"),
        flows=Done(
            "tests/test_history_liquity.py::test_the_events_new_figures_are_the_flows_and_earnings_add_up",
            "tests/test_history_liquity.py::test_a_redemption_and_a_liquidation_take_out_what_they_took",
        ),
        risk=Done("tests/test_liquity.py::test_the_liquidation_price_is_where_the_trove_manager_would_liquidate"),
        rewards=Done("tests/test_liquity.py::test_a_stake_and_its_fee_gains_are_lqty_stakings_own"),
        accounts=Done(TOKEN_IN_ACCOUNT),
        pastBlocks=Done(HISTORY),
        latency=Done("bench/latency.py::liquity (depositor: a trove and a Stability Pool deposit with its gains)"),
        docs=page(
            "liquity", "Formulas (every read at `blockNumber`)", "Flows and earnings (`positionsHistory`)", "Addresses"
        ),
    ),
}
"""Every protocol's cells, by feature key."""


def render() -> str:
    """docs/matrix.md: the table, then each protocol's cells in full."""
    mark = {Done: "✓", Exempt: "—", Missing: "✗"}
    lines = [
        "# Every protocol against every feature",
        "",
        "Generated from `tests/matrix.py` (`.venv/bin/python -m tests.matrix` writes this page) and held by",
        "`tests/test_matrix.py` to the registry, the tests, `bench/latency.py` and the protocols' pages. A",
        "cell is ✓ where the tests named below exercise it on the devnet's worlds, — where the protocol has",
        "no use for it (the reason below), ✗ where it is not built yet (what it lacks below). A protocol",
        "cannot be added with a cell left out, nor with one ✗.",
        "",
        "| protocol | " + " | ".join(FEATURES.values()) + " |",
        "|---|" + "---|" * len(FEATURES),
    ]
    for protocol, cells in CELLS.items():
        lines.append(f"| {protocol} | " + " | ".join(mark[type(cells[key])] for key in FEATURES) + " |")
    missing = sum(isinstance(cell, Missing) for cells in CELLS.values() for cell in cells.values())
    lines += ["", f"{missing} cells are not built yet.", ""]
    for protocol, cells in CELLS.items():
        lines += [f"## {protocol}", ""]
        for key, title in FEATURES.items():
            cell = cells[key]
            if isinstance(cell, Done):
                said = ", ".join(f"`{ref}`" for ref in cell.refs)
            else:
                said = ("not built yet: " if isinstance(cell, Missing) else "exempt: ") + (
                    cell.what if isinstance(cell, Missing) else cell.reason
                )
            lines.append(f"- {title}: {said}")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    PAGE.write_text(render())
    print(f"wrote {PAGE.relative_to(ROOT)}", file=sys.stderr)
