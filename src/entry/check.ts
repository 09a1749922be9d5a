/**
 * `mcp-wire/check`: `check` as a library — every rule a client relies on, driven read-only over
 * every revision a server speaks, with the rule catalogue the findings come from (docs/check.md).
 */
export { checkHttp, checkStdio } from "../check/check.js";
export type { CheckOptions, CheckWait } from "../check/check.js";
export { CHECK_RULES, ruleOf, type CheckRuleId } from "../check/rules.js";
export type { CheckReport, CheckRule, Finding, RevisionOutcome, BaselineKey, ClientName } from "../check/types.js";
