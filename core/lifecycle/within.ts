/** What `within` answers when the promise did not settle in time. */
export const TIMED_OUT = Symbol('timed out');

/**
 * `promise`, or TIMED_OUT after `ms`. For browser calls that may stay pending for good (WebGPU's adapter and device
 * requests: docs/gpu-browser.md, "When WebGPU does not answer"). A value that arrives after the wait goes to `late`,
 * so a resource nobody will use can be freed.
 */
export async function within<T>(
  promise: Promise<T>,
  ms: number,
  late: (value: T) => void = () => undefined,
): Promise<T | typeof TIMED_OUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let gaveUp = false;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => {
      gaveUp = true;
      resolve(TIMED_OUT);
    }, ms);
  });
  const settled = promise.then((value) => {
    if (gaveUp) late(value);
    return value;
  });
  try {
    return await Promise.race([settled, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
