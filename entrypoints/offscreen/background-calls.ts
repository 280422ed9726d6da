import type { PageRead } from '../../core/conversation/responder';
import { sendRequest, type Send } from '../../core/protocol';
import type { ToolCall, ToolResult } from '../../core/tools/types';
import { pageOfReply } from './pdf-reader';

/** A tool look-up, run by the background (the only context with the tools' network access). */
export async function runToolInBackground(send: Send, call: ToolCall, signal: AbortSignal): Promise<ToolResult> {
  const reply = await sendRequest(send, 'tools/run', { call }, 20_000);
  if (signal.aborted) return { ok: false, tool: call.name, kind: 'cancelled', speech: '' };
  if (!reply.ok)
    return { ok: false, tool: call.name, kind: 'offline', speech: "Sorry, I couldn't reach that service right now." };
  return reply.data as unknown as ToolResult;
}

/** The active tab's text (or its PDF's), read by the background after the user's click. */
export async function readActivePage(send: Send): Promise<PageRead> {
  // Time for the background to fetch a large PDF as well (docs/tools.md, "PDFs").
  const reply = await sendRequest(send, 'page/read', {}, 60_000);
  if (!reply.ok) return { ok: false, message: "I couldn't read this page." };
  return pageOfReply(reply.data);
}
