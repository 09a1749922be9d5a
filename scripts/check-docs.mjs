#!/usr/bin/env node
// Writes docs/check.md from the rule catalogue (src/check/rules.ts); run after `npm run build`.
// src/check/docs.test.ts fails when the page and the catalogue disagree.
import { writeFileSync } from "node:fs";
import { checkDocs } from "../dist/src/check/docs.js";

writeFileSync(new URL("../docs/check.md", import.meta.url), checkDocs());
