/**
 * The rules of the surface gate (`check --surface FILE`): one per kind of change to a server's
 * surface, its severity the change's class — breaking an error, risky a warning, compatible info.
 * They run only when a recorded surface is compared.
 */
import type { CheckRule } from "./types.js";

const SPEC = "https://modelcontextprotocol.io/specification";
const ALL = "all" as const;
const TOOLS = `${SPEC}/2025-11-25/server/tools`;
const KEEP = "If the change is meant, record the new surface with --update-surface and say so to the server's users.";

export const SURFACE_RULES = [
  {
    id: "surface_item_removed",
    severity: "error",
    title: "No tool, resource, template or prompt disappears",
    rule: "An item the recorded surface lists is gone: every client that calls, reads or gets it by its name or URI now fails. (breaking)",
    revisions: ALL,
    spec: `${TOOLS}#listing-tools`,
    fix: `Keep the item (deprecate it in its description first). ${KEEP}`,
  },
  {
    id: "surface_item_renamed",
    severity: "error",
    title: "No item is renamed",
    rule: "An item is gone and another with the same definition under a new name or URI appeared: callers that use the old name fail. (breaking)",
    revisions: ALL,
    spec: `${TOOLS}#listing-tools`,
    fix: `Keep the old name (an SDK upgrade that changes how names are made is the usual cause). ${KEEP}`,
  },
  {
    id: "surface_required_added",
    severity: "error",
    title: "No required parameter or prompt argument is added",
    rule: "A tool's inputSchema requires a parameter it did not, or a prompt requires an argument it did not: every existing call that omits it is now refused. (breaking)",
    revisions: ALL,
    spec: `${TOOLS}#tool`,
    fix: `Make the new parameter optional, with a default the server applies. ${KEEP}`,
  },
  {
    id: "surface_type_narrowed",
    severity: "error",
    title: "No parameter admits less than before",
    rule: "A schema in a tool's inputSchema admits fewer values: fewer types, an enum value removed, a tighter minimum, maximum, length, pattern or format, additionalProperties closed. Calls that were valid are now refused. (breaking)",
    revisions: ALL,
    spec: `${TOOLS}#tool`,
    fix: `Accept what was accepted before (validate the new limit inside the tool, with a clear error). ${KEEP}`,
  },
  {
    id: "surface_output_field_removed",
    severity: "error",
    title: "No output field disappears",
    rule: "A tool's outputSchema no longer has (or no longer requires) a field it had: clients that read it from structuredContent break. (breaking)",
    revisions: ALL,
    spec: `${TOOLS}#output-schema`,
    fix: `Keep returning the field. ${KEEP}`,
  },
  {
    id: "surface_description_changed",
    severity: "warning",
    title: "Descriptions change only on purpose",
    rule: "A description changed: the model reads it as an instruction, and a user approved the server as it read before. A description rewritten after approval is the change clients fear most. (risky)",
    revisions: ALL,
    spec: `${TOOLS}#tool`,
    fix: `Review the new text as a user would. ${KEEP}`,
  },
  {
    id: "surface_annotation_toward_harm",
    severity: "warning",
    title: "No tool becomes less safe",
    rule: "A tool's annotations changed toward harm: readOnlyHint true to false (or gone), or destructiveHint false to true (or gone, since it defaults to true). Clients that skipped confirmation for it no longer should. (risky)",
    revisions: ALL,
    spec: `${TOOLS}#tool`,
    fix: `Check the tool really changed behaviour, and tell users. ${KEEP}`,
  },
  {
    id: "surface_destructive_tool_added",
    severity: "warning",
    title: "A destructive tool added is seen",
    rule: "A tool was added whose annotations say destructiveHint: true. (risky)",
    revisions: ALL,
    spec: `${TOOLS}#tool`,
    fix: `Make sure the new tool is meant to be there. ${KEEP}`,
  },
  {
    id: "surface_definition_changed",
    severity: "warning",
    title: "Other changes to a definition are seen",
    rule: "A part of a definition changed that no other surface rule classes (a title, a MIME type, a parameter removed, an output schema's types, a prompt argument removed…): a person should look. (risky)",
    revisions: ALL,
    spec: `${TOOLS}#tool`,
    fix: `Review the change. ${KEEP}`,
  },
  {
    id: "surface_item_added",
    severity: "info",
    title: "Items added",
    rule: "A tool, resource, template or prompt was added. (compatible)",
    revisions: ALL,
    spec: `${TOOLS}#listing-tools`,
    fix: KEEP,
  },
  {
    id: "surface_parameter_added",
    severity: "info",
    title: "Optional parameters added",
    rule: "A tool gained an optional parameter, or a prompt an optional argument. (compatible)",
    revisions: ALL,
    spec: `${TOOLS}#tool`,
    fix: KEEP,
  },
  {
    id: "surface_required_removed",
    severity: "info",
    title: "Parameters made optional",
    rule: "A parameter or prompt argument that was required is now optional. (compatible)",
    revisions: ALL,
    spec: `${TOOLS}#tool`,
    fix: KEEP,
  },
  {
    id: "surface_type_widened",
    severity: "info",
    title: "Parameters that admit more",
    rule: "A schema in a tool's inputSchema admits more values than before: more types, an enum value added, a looser bound, a pattern or format dropped, additionalProperties opened. (compatible)",
    revisions: ALL,
    spec: `${TOOLS}#tool`,
    fix: KEEP,
  },
  {
    id: "surface_annotation_changed",
    severity: "info",
    title: "Annotations changed toward safety",
    rule: "A tool's annotations changed, but not toward harm (it became read-only, non-destructive, or another hint changed). (compatible)",
    revisions: ALL,
    spec: `${TOOLS}#tool`,
    fix: KEEP,
  },
] as const satisfies readonly CheckRule[];

/** The id of each surface rule. */
export type SurfaceRuleId = (typeof SURFACE_RULES)[number]["id"];
