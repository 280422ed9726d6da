import { useEffect, useRef } from 'preact/hooks';
import type { TranscriptLine } from './useConversation';

/** Both sides of the conversation, newest at the bottom; live captions show in a lighter style until final. */
export function Transcript({ lines, captions }: { lines: TranscriptLine[]; captions: boolean }) {
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => end.current?.scrollIntoView({ block: 'end' }), [lines]);
  if (lines.length === 0) {
    return (
      <p class="empty muted">
        Say hello, or type a question below. Your voice is heard and answered on this computer; weather and Wikipedia questions
        are looked up online.
      </p>
    );
  }
  return (
    <ol class="lines">
      {lines.map((line) => (
        <li key={line.key} class={`line ${line.role} ${line.final ? '' : 'live'}`} data-role={line.role}>
          <span class="visually-hidden">{line.role === 'user' ? 'You said: ' : 'Assistant: '}</span>
          {captions || line.final ? line.text : '…'}
        </li>
      ))}
      <div ref={end} />
    </ol>
  );
}
