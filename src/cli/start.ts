#!/usr/bin/env node
import { runCli } from './run-cli.js';
import { startArguments } from './start-arguments.js';

// `npm start`: see start-arguments.ts.
const exitCode = await runCli(startArguments(process.argv.slice(2)), { stdout: process.stdout, stderr: process.stderr });
if (exitCode !== 0) process.exitCode = exitCode;
