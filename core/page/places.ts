// Where a section of a PDF or a video is (docs/tools.md, "PDFs" and "Videos"): the page text of a PDF has one section
// per page, headed "Page 12", and a video's captions one section per stretch of time, headed "At 12:34". The headings
// are what the model sees in "[Section: …]"; the sources card reads the place back from them to label a source
// ("p. 12", "at 12:34") and to open the viewer at that page or seek the video to that time.
import type { ExtractionKind } from './types';

export type Place = { page: number } | { seconds: number };

/** 754 → "12:34"; 3_754 → "1:02:34". */
export function formatClock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3_600);
  const m = Math.floor((s % 3_600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

export function placeHeading(place: Place): string {
  return 'page' in place ? `Page ${place.page}` : `At ${formatClock(place.seconds)}`;
}

/** The place a section heading names, for the kinds of text whose headings Sidetalk wrote itself; else null. */
export function placeOf(kind: ExtractionKind, heading: string): Place | null {
  if (kind === 'pdf') {
    const m = /^Page (\d{1,6})$/.exec(heading);
    return m ? { page: Number(m[1]) } : null;
  }
  if (kind === 'video') {
    const m = /^At (?:(\d{1,3}):)?(\d{1,2}):(\d{2})$/.exec(heading);
    return m ? { seconds: Number(m[1] ?? 0) * 3_600 + Number(m[2]) * 60 + Number(m[3]) } : null;
  }
  return null;
}

/** How the sources card names a place: "p. 12", "at 12:34". */
export function placeLabel(place: Place): string {
  return 'page' in place ? `p. ${place.page}` : `at ${formatClock(place.seconds)}`;
}
