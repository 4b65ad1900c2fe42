#!/usr/bin/env bun
// The native-path shim must load before anything that loads a native library (single executable).
import "./runtime/native.ts";
import { runCli } from "./cli/runCli.ts";

process.exitCode = await runCli(process.argv.slice(2));
