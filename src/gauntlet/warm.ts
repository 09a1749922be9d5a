/**
 * The judge's schema validators loaded while the client starts. The first verdict of a revision
 * loads its compiled validators (some 15 ms) and the first on a method compiles that validator's
 * code, which the client would otherwise wait for inside its first round trips; a client process
 * takes longer than that to boot. One validator a turn, the revisions clients ask for most
 * first; it stops once the client has spoken, and what is still missing is loaded when first used.
 */
import { LATEST_LEGACY_REVISION, RULES, type Revision } from "../rules/revisions.js";
import { revisionSchema } from "../schema/load.js";

/** What a client sends first, in the order it sends it. */
const OPENING: Readonly<Record<"legacy" | "modern", readonly string[]>> = {
  legacy: ["initialize", "notifications/initialized", "tools/list", "tools/call"],
  modern: ["server/discover", "tools/list", "tools/call"],
};

export function warmJudging(revisions: readonly Revision[], spoke: () => boolean): void {
  // the latest legacy revision first (most clients ask for it), then the newest down
  const order = [...revisions].sort((a, b) =>
    a === LATEST_LEGACY_REVISION ? -1 : b === LATEST_LEGACY_REVISION ? 1 : b.localeCompare(a),
  );
  const steps = order.flatMap((r) => OPENING[RULES[r].era].map((method) => [r, method] as const));
  const next = (i: number): void => {
    if (i >= steps.length || spoke()) return;
    const [revision, method] = steps[i]!;
    const schema = revisionSchema(revision);
    const definition = schema.methodDefinitions.get(method);
    if (definition !== undefined) schema.validator(definition, "first");
    setImmediate(next, i + 1);
  };
  setImmediate(next, 0);
}
