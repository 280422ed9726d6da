/** What the product-loop benches share: their arguments, the timing of a session's runs, medians and the output. */
import { writeFileSync } from 'node:fs';

/** `--key value` pairs after the script name. */
export function parseArgs(): Map<string, string> {
  const args = new Map<string, string>();
  for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
  return args;
}

export interface TimedCall {
  label: string;
  start: number;
  end: number;
}

/** Wraps `session.run` so each call is recorded in `calls()` (the current list) with its start and end. */
export function timeRuns(session: { run: (feeds: never) => Promise<unknown> }, label: string, calls: () => TimedCall[]): void {
  const run = session.run.bind(session) as (feeds: unknown) => Promise<unknown>;
  (session as { run: (feeds: unknown) => Promise<unknown> }).run = async (feeds) => {
    const call = { label, start: performance.now(), end: 0 };
    calls().push(call);
    try {
      return await run(feeds);
    } finally {
      call.end = performance.now();
    }
  };
}

export const runMs = (calls: readonly TimedCall[]): number => calls.reduce((s, c) => s + (c.end - c.start), 0);
export const r1 = (x: number): number => Math.round(x * 10) / 10;
export const ratio = (a: number, b: number): number => Math.round((a / b) * 1000) / 1000;

/** The median over the rounds after the first (which pays kernel and shader set-up for the new shapes). */
export function medianAfterFirst(xs: readonly number[]): number {
  const measured = xs.slice(1).sort((a, b) => a - b);
  return measured[Math.floor(measured.length / 2)]!;
}

/** Per key, `medianAfterFirst` of the rounds' values, as `median<Key>`. */
export function mediansAfterFirst<K extends string>(rounds: Record<K, number>[], keys: readonly K[]): Record<string, number> {
  return Object.fromEntries(
    keys.map((k) => [`median${k[0]!.toUpperCase()}${k.slice(1)}`, medianAfterFirst(rounds.map((r) => r[k]))]),
  );
}

export function report(result: object, out: string | undefined): void {
  console.log(JSON.stringify(result, null, 2));
  if (out) writeFileSync(out, JSON.stringify(result, null, 2));
}
