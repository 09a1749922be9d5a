// Part of the build, after tsc: writes the vendored schemas' validators, compiled ahead of time
// (src/schema/compile.ts), beside the module that loads them (dist/src/schema/compiled/).
import { mkdirSync, writeFileSync } from "node:fs";
import { compiledModule } from "../dist/src/schema/compile.js";
import { compiledPath, SCHEMA_NAMES } from "../dist/src/schema/load.js";

for (const name of SCHEMA_NAMES) {
  for (const mode of ["first", "all"]) {
    const path = compiledPath(name, mode);
    mkdirSync(new URL(".", path), { recursive: true });
    writeFileSync(path, compiledModule(name, mode));
  }
}
