import type { CDPSession } from 'playwright-core';

/** CDP commands to targets that Playwright does not expose (the offscreen document, workers), through one session. */
export class TargetProxy {
  private nextId = 1;
  private readonly waiting = new Map<number, (value: unknown) => void>();
  readonly workers = new Map<string, string>(); // sessionId → url

  constructor(private readonly cdp: CDPSession) {
    cdp.on('Target.receivedMessageFromTarget', (e: { sessionId: string; message: string }) =>
      this.onMessage(e.sessionId, e.message),
    );
  }

  private onMessage(sessionId: string, raw: string): void {
    const msg = JSON.parse(raw) as {
      id?: number;
      result?: unknown;
      error?: unknown;
      method?: string;
      params?: { sessionId: string; message: string; targetInfo?: { type: string; url: string } };
    };
    if (msg.id !== undefined) {
      this.waiting.get(msg.id)?.(msg.error ? null : msg.result);
      this.waiting.delete(msg.id);
    } else if (msg.method === 'Target.attachedToTarget' && msg.params?.targetInfo) {
      this.workers.set(`${sessionId}/${msg.params.sessionId}`, `${msg.params.targetInfo.type} ${msg.params.targetInfo.url}`);
    } else if (msg.method === 'Target.receivedMessageFromTarget' && msg.params) {
      this.onMessage(`${sessionId}/${msg.params.sessionId}`, msg.params.message);
    }
  }

  /** Sends `method` to a (possibly nested, "outer/inner") session; resolves null on error or after 10 s. */
  send(path: string, method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.nextId++;
    const parts = path.split('/');
    let message = JSON.stringify({ id, method, params });
    // Wrap for every nested hop: the innermost session receives the command.
    for (let i = parts.length - 1; i >= 1; i--) {
      message = JSON.stringify({
        id: this.nextId++,
        method: 'Target.sendMessageToTarget',
        params: { sessionId: parts[i], message },
      });
    }
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      setTimeout(() => {
        if (this.waiting.delete(id)) resolve(null);
      }, 10_000);
      void this.cdp
        .send('Target.sendMessageToTarget' as never, { sessionId: parts[0], message } as never)
        .catch(() => resolve(null));
    });
  }
}

/** Attaches to the extension's offscreen document (not a page Playwright exposes); its session id, or null if none. */
export async function attachOffscreenDocument(cdp: CDPSession): Promise<string | null> {
  const { targetInfos } = (await cdp.send('Target.getTargets' as never)) as {
    targetInfos: { targetId: string; type: string; url: string }[];
  };
  const doc = targetInfos.find((t) => t.url.endsWith('/offscreen.html'));
  if (!doc) return null;
  const { sessionId } = (await cdp.send(
    'Target.attachToTarget' as never,
    { targetId: doc.targetId, flatten: false } as never,
  )) as {
    sessionId: string;
  };
  return sessionId;
}
