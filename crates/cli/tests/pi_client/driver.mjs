// Drives `bashrt rpc` with the reference's own RpcClient, unchanged, as an agent would: the Rust test
// `pi_client.rs` installs the pinned package and runs this. Any failed check throws (exit status 1).
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const pkgDir = process.env.PI_PACKAGE;
const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
assert.equal(pkg.version, process.env.PI_VERSION);
const { RpcClient } = await import(pathToFileURL(join(pkgDir, pkg.exports["."].import)).href);

const work = process.env.WORK;
const alive = (pid) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\S+ \(.*\) [ZX]/s.test(stat);
  } catch {
    return false;
  }
};
const childrenOf = (pid) =>
  readdirSync(`/proc/${pid}/task`).flatMap((t) =>
    readFileSync(`/proc/${pid}/task/${t}/children`, "utf8").split(" ").filter(Boolean).map(Number));

const client = new RpcClient({ cliPath: process.env.SHIM, cwd: work });
const updates = [];
client.onEvent((event) => updates.push(event));
await client.start();

// Echo: the output is the command's own, nothing added.
let r = await client.bash("echo hello");
assert.deepEqual(r, { ...r, output: "hello\n", exitCode: 0, cancelled: false, truncated: false });
assert.equal(r.fullOutputPath, undefined);

// State persists across calls: cwd, variables, functions.
await client.bash("mkdir -p sub && cd sub && export X=42 && greet() { echo hi $1; }");
r = await client.bash("pwd; echo $X; greet you");
assert.equal(r.output, `${join(work, "sub")}\n42\nhi you\n`);

// Exit codes, errors in the output.
assert.equal((await client.bash("(exit 3)")).exitCode, 3);
assert.equal((await client.bash("false")).exitCode, 1);
r = await client.bash("ls /nonexistent");
assert.equal(r.exitCode, 2);
assert.match(r.output, /^ls: cannot access '\/nonexistent': No such file or directory\n$/);

// Truncation: the output is bare, the full output is a file the client can read.
r = await client.bash("seq 1 100000");
assert.equal(r.truncated, true);
assert.equal(r.exitCode, 0);
assert.ok(!r.output.includes("[Showing"), "notices stay out of output");
assert.ok(r.output.endsWith("99999\n100000\n"));
const full = Array.from({ length: 100000 }, (_, i) => `${i + 1}\n`).join("");
assert.equal(readFileSync(r.fullOutputPath, "utf8"), full);

// abortBash() during a sleep: cancelled, no exit code, the sleep is dead, the output so far is kept.
const running = client.bash("sleep 30 & echo spid:$!; wait");
const spid = await new Promise((resolve) => {
  client.onEvent(() => {
    const text = updates.filter((e) => e.type === "bash_update").map((e) => e.chunk).join("");
    const m = text.match(/spid:(\d+)\n/);
    if (m) resolve(Number(m[1]));
  });
});
assert.ok(alive(spid));
await client.abortBash();
r = await running;
assert.equal(r.cancelled, true);
assert.ok(!("exitCode" in r) || r.exitCode === undefined, `exitCode left out: ${JSON.stringify(r)}`);
assert.equal(r.output, `spid:${spid}\n`);
assert.ok(!alive(spid), "the aborted command's tree is dead");
// The next call works; whatever happened to the shell is not in its output.
r = await client.bash("echo after");
assert.equal(r.output, "after\n");
assert.equal(r.exitCode, 0);

// stop() leaves no process: not bashrt, not its shells, not what commands left in the background.
const shell = Number((await client.bash("echo $$")).output);
const bg = Number((await client.bash("sleep 300 >/dev/null 2>&1 & echo $!")).output);
const shim = client.process.pid;
const servers = childrenOf(shim);
assert.equal(servers.length, 1, `the shim runs one bashrt: ${servers}`);
const pids = { shim, bashrt: servers[0], shell, bg };
for (const [name, pid] of Object.entries(pids)) assert.ok(alive(pid), `${name} ${pid} runs before stop()`);
await client.stop();
for (const [name, pid] of Object.entries(pids)) assert.ok(!alive(pid), `${name} ${pid} outlived stop()`);
console.log(JSON.stringify({ ok: true, pids }));
