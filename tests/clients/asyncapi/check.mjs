// Parse an AsyncAPI document with the AsyncAPI parser; print its diagnostics as JSON lines and exit 1
// when any is an error (severity 0). Usage: node check.mjs FILE
import { readFileSync } from "node:fs";
import { Parser } from "@asyncapi/parser";

const text = readFileSync(process.argv[2], "utf8");
const { document, diagnostics } = await new Parser().parse(text);
for (const d of diagnostics) {
  console.log(JSON.stringify({ severity: d.severity, code: d.code, message: d.message, path: d.path }));
}
const errors = diagnostics.filter((d) => d.severity === 0);
if (!document || errors.length) process.exit(1);
console.log(JSON.stringify({ ok: true, channels: document.channels().length, messages: document.messages().length,
                             operations: document.operations().length }));
