#!/usr/bin/env node
import { runCli } from './run-cli.js';

const exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
if (exitCode !== 0) process.exitCode = exitCode;
