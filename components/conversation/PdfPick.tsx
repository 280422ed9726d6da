/**
 * A PDF stored on this computer, which Chrome lets no extension read (docs/tools.md, "PDFs"): the user opens the file
 * here, the panel hands its bytes to the background for that tab, and the question is asked again. The file is read
 * only in memory and never leaves this computer.
 */
import { useRef, useState } from 'preact/hooks';
import { bytesToBase64 } from '../../core/text/base64';
import { pageTunables } from '../../core/tunables';
import { request } from '../ui/runtime';

export function PdfPickCard({ card }: { card: Record<string, unknown> }) {
  const question = typeof card.question === 'string' && card.question.length <= 4_000 ? card.question : null;
  const [state, setState] = useState<{ busy: boolean; message: string | null }>({ busy: false, message: null });
  const input = useRef<HTMLInputElement>(null);
  if (!question) return null;
  const open = async (file: File | undefined) => {
    // The same file chosen again after a failure must fire `change` again.
    if (input.current) input.current.value = '';
    if (!file) return;
    if (file.size === 0) return setState({ busy: false, message: 'That file is empty.' });
    if (file.size > pageTunables.maxPdfBytes) return setState({ busy: false, message: 'This PDF is too large for me to read.' });
    setState({ busy: true, message: null });
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      // Every PDF starts with "%PDF-": anything else would only fail in pdf.js, after the question was asked again.
      if (String.fromCharCode(...bytes.subarray(0, 5)) !== '%PDF-') throw new Error("That file isn't a PDF.");
      const data = bytesToBase64(bytes);
      const kept = await request('page/local-pdf', { name: file.name.slice(0, 1_000), data }, 60_000);
      if (!kept.ok) throw new Error(kept.message ?? "I couldn't take that file.");
      setState({ busy: false, message: null });
      await request('conversation/text', { text: question }, 180_000);
    } catch (e) {
      setState({ busy: false, message: (e as Error).message });
    }
  };
  return (
    <article class="card" data-testid="card-pdf-pick" aria-label="Open the PDF from this computer">
      <p class="small">Open the same PDF here and I'll read it for your question.</p>
      <button type="button" class="button" disabled={state.busy} onClick={() => input.current?.click()}>
        {state.busy ? 'Reading…' : 'Choose the PDF…'}
      </button>
      <input
        ref={input}
        type="file"
        accept="application/pdf,.pdf"
        class="visually-hidden"
        tabIndex={-1}
        aria-hidden="true"
        data-testid="pdf-pick-input"
        onChange={(e) => void open((e.currentTarget as HTMLInputElement).files?.[0])}
      />
      <p class="muted small" role="status">
        {state.message ?? ''}
      </p>
    </article>
  );
}
