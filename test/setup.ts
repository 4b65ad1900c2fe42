// Real llama.cpp and LanceDB run in these tests on a 2-core machine: give each test room.
import { setDefaultTimeout } from "bun:test";
setDefaultTimeout(120_000);
