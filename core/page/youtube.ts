// YouTube watch pages (docs/tools.md, "Videos"): what the page's player response says about caption tracks, which
// track Sidetalk reads, and the address it fetches it from. Facts and their sources are in that section of the doc.
import { z } from 'zod';

/** https://www.youtube.com/watch?v=ID (and m.youtube.com): the video id, else null. */
export function watchVideoId(href: string | undefined | null): string | null {
  let url: URL;
  try {
    url = new URL(href ?? '');
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || !['www.youtube.com', 'youtube.com', 'm.youtube.com'].includes(url.hostname)) return null;
  if (url.pathname !== '/watch') return null;
  const id = url.searchParams.get('v');
  return id && /^[\w-]{6,20}$/.test(id) ? id : null;
}

export const CaptionTrackSchema = z.object({
  baseUrl: z.string().max(4_000),
  languageCode: z.string().max(40),
  /** 'asr' for tracks made by speech recognition; absent for tracks someone wrote. */
  kind: z.string().max(40).optional(),
  name: z.string().max(200).optional(),
});
export type CaptionTrack = z.infer<typeof CaptionTrackSchema>;

/** What the script in the tab reads from the player response (validated here; a page can put anything there). */
export const PlayerCaptionsSchema = z.object({
  videoId: z.string().max(40),
  title: z.string().max(1_000),
  tracks: z.array(CaptionTrackSchema).max(200),
});
export type PlayerCaptions = z.infer<typeof PlayerCaptionsSchema>;

const base = (code: string) => code.toLowerCase().split(/[-_]/)[0] ?? '';

/**
 * The track to read: one in a language the user reads (their languages in order; a written track before a
 * recognised one), else the original, which is the language of the recognised (asr) track, else the first track.
 */
export function pickCaptionTrack(tracks: readonly CaptionTrack[], languages: readonly string[]): CaptionTrack | null {
  const written = (t: CaptionTrack) => t.kind !== 'asr';
  for (const lang of languages) {
    const same = tracks.filter((t) => base(t.languageCode) === base(lang));
    const pick = same.find(written) ?? same[0];
    if (pick) return pick;
  }
  const asr = tracks.find((t) => t.kind === 'asr');
  if (asr) return tracks.find((t) => written(t) && base(t.languageCode) === base(asr.languageCode)) ?? asr;
  return tracks[0] ?? null;
}

/** The track's address asking for json3, on YouTube's own host only (a page could name any address). */
export function captionUrl(track: CaptionTrack, pageUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(track.baseUrl, pageUrl);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.host !== new URL(pageUrl).host || url.pathname !== '/api/timedtext') return null;
  url.searchParams.set('fmt', 'json3');
  return url.href;
}

/**
 * The address a video's answers name: the watch page with its video id and nothing else (the id names the page the
 * user sees; other parameters, such as a playlist or a start time, are dropped like any query: docs/security.md).
 */
export function videoPageUrl(videoId: string): string {
  return `https://www.youtube.com/watch?v=${encodeURIComponent(videoId)}`;
}

/** Whether the tab still shows the page an answer was read from: the same video for a watch page. */
export function samePage(tabHref: string, answerUrl: string, stripped: (href: string) => string): boolean {
  const video = watchVideoId(answerUrl);
  return video ? watchVideoId(tabHref) === video : stripped(tabHref) === answerUrl;
}
