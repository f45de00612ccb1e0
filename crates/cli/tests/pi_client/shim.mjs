// Stands in for the reference's CLI: its RpcClient runs `node <cliPath> --mode rpc [args]`; this runs
// `bashrt rpc [args]` on the same stdin, stdout and stderr, passes signals on, and exits as bashrt did.
import { spawn } from "node:child_process";

const args = process.argv.slice(2);
if (args[0] !== "--mode" || args[1] !== "rpc") {
  console.error(`shim: expected --mode rpc, got: ${args.join(" ")}`);
  process.exit(2);
}
const child = spawn(process.env.BASHRT_BIN, ["rpc", ...args.slice(2)], { stdio: "inherit" });
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.on("error", (e) => { console.error(`shim: ${e.message}`); process.exit(127); });
child.on("exit", (code, signal) => process.exit(code ?? 128));
