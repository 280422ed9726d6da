// PDFs and videos in the user's tab (docs/tools.md, "PDFs" and "Videos"). Content scripts cannot run inside Chrome's
// PDF viewer, so a PDF tab (found by the extractor: the document's content type is application/pdf) is fetched here,
// with the tab's origin granted by the user's toolbar click (activeTab), and read by pdf.js in the offscreen document.
// A YouTube watch page's caption track is found in the player's response (read in the page's own world) and fetched
// from the tab. The functions handed to executeScript run in the tab, so each is self-contained.
import { unavailable, type PageUnavailable } from '../../core/page/access';
import { captionPageText, parseCaptions } from '../../core/page/captions';
import type { PageExtraction } from '../../core/page/types';
import { pageUrlForPrompt } from '../../core/page/url';
import { captionUrl, pickCaptionTrack, PlayerCaptionsSchema, videoPageUrl, watchVideoId } from '../../core/page/youtube';
import { bytesToBase64 } from '../../core/text/base64';
import { pageTunables } from '../../core/tunables';

export type PdfRead = { ok: true; pdf: { title: string; url: string; data: string } } | PageUnavailable;
export type VideoRead = { ok: true; page: PageExtraction } | PageUnavailable;

/** Largest caption response read (a three-hour json3 track with word timings is about 3 MB). */
const MAX_CAPTION_CHARS = 8_000_000;

/** In the tab, for file:// PDFs (fetch has no file: scheme): the document's bytes, base64, or null. */
function readOwnBytes(max: number): Promise<string | null> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open('GET', location.href);
    xhr.responseType = 'arraybuffer';
    xhr.onload = () => {
      const buf = xhr.response as ArrayBuffer | null;
      if (!buf || buf.byteLength > max) return resolve(null);
      const bytes = new Uint8Array(buf);
      let s = '';
      for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      resolve(btoa(s));
    };
    xhr.onerror = () => resolve(null);
    xhr.send();
  });
}

/**
 * PDF files the user opened in the panel for a file:// tab (Chrome lets no extension read those: docs/tools.md,
 * "PDFs"), by the tab's address; the latest two, for the service worker's life. Nothing is written to disk.
 */
const openedByUser = new Map<string, { name: string; data: string }>();
const OPENED_KEPT = 2;
/** The file's address without its fragment: a source click moves the viewer to `#page=27`, and it is the same file. */
const fileKey = (href: string) => href.split('#')[0]!;

/** Keeps the file the user opened for the tab at `href` (a file:// PDF tab); false for any other tab. */
export function keepOpenedPdf(href: string, file: { name: string; data: string }): boolean {
  // "JVBER" is "%PDF-" in base64: the file is at least shaped like a PDF.
  if (!href.startsWith('file:') || !file.data.startsWith('JVBER')) return false;
  if (file.data.length > Math.ceil(pageTunables.maxPdfBytes / 3) * 4) return false;
  openedByUser.delete(fileKey(href));
  openedByUser.set(fileKey(href), file);
  while (openedByUser.size > OPENED_KEPT) openedByUser.delete(openedByUser.keys().next().value!);
  return true;
}

export async function readPdfTab(tab: chrome.tabs.Tab): Promise<PdfRead> {
  const href = tab.url ?? '';
  const max = pageTunables.maxPdfBytes;
  const meta = { title: tab.title ?? '', url: pageUrlForPrompt(href) };
  try {
    const opened = openedByUser.get(fileKey(href));
    if (opened) return { ok: true, pdf: { ...meta, title: meta.title || opened.name, data: opened.data } };
    if (href.startsWith('file:')) {
      // Measured in Chromium 156 with file access on: neither this in-tab read nor an extension page's XHR or fetch
      // can read a file:// PDF (docs/tools.md, "PDFs"); kept for builds that allow it, and said plainly when it fails.
      const [r] = await chrome.scripting
        .executeScript({ target: { tabId: tab.id! }, func: readOwnBytes, args: [max] })
        .catch(() => [undefined]);
      const data = r?.result;
      return typeof data === 'string' ? { ok: true, pdf: { ...meta, data } } : unavailable('pdf_local');
    }
    // The user's cookies go along: a PDF behind a sign-in opens as it does in the tab.
    const response = await fetch(href, { credentials: 'include' });
    if (!response.ok) return unavailable('pdf');
    if (Number(response.headers.get('content-length') ?? 0) > max) return unavailable('pdf_too_large');
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length > max) return unavailable('pdf_too_large');
    return { ok: true, pdf: { ...meta, data: bytesToBase64(bytes) } };
  } catch {
    return unavailable('pdf');
  }
}

/** In the page's own world: the caption tracks of the video the player holds now (after in-page navigation too). */
function readPlayerCaptions(): unknown {
  type Track = { baseUrl?: unknown; languageCode?: unknown; kind?: unknown; name?: { simpleText?: unknown } };
  type Response = {
    videoDetails?: { videoId?: unknown; title?: unknown };
    captions?: { playerCaptionsTracklistRenderer?: { captionTracks?: Track[] } };
  };
  const w = window as unknown as { ytInitialPlayerResponse?: Response };
  const player = document.getElementById('movie_player') as (HTMLElement & { getPlayerResponse?: () => Response }) | null;
  let response: Response | undefined;
  try {
    response = player?.getPlayerResponse?.() ?? w.ytInitialPlayerResponse;
  } catch {
    response = w.ytInitialPlayerResponse;
  }
  if (!response) return null;
  const tracks = response.captions?.playerCaptionsTracklistRenderer?.captionTracks ?? [];
  return {
    videoId: String(response.videoDetails?.videoId ?? ''),
    title: String(response.videoDetails?.title ?? document.title),
    tracks: (Array.isArray(tracks) ? tracks : []).slice(0, 200).map((t) => ({
      baseUrl: String(t.baseUrl ?? ''),
      languageCode: String(t.languageCode ?? ''),
      ...(typeof t.kind === 'string' ? { kind: t.kind } : {}),
      ...(typeof t.name?.simpleText === 'string' ? { name: t.name.simpleText } : {}),
    })),
  };
}

/** In the tab (its own origin, so the user's YouTube session applies): the response body, cut at `max` characters. */
async function fetchText(url: string, max: number): Promise<string | null> {
  try {
    const r = await fetch(url, { credentials: 'include' });
    if (!r.ok) return null;
    const text = await r.text();
    return text.length > max ? null : text;
  } catch {
    return null;
  }
}

export async function readVideoTab(tab: chrome.tabs.Tab): Promise<VideoRead> {
  const href = tab.url ?? '';
  const videoId = watchVideoId(href);
  if (!videoId || tab.id === undefined) return unavailable('no_tab');
  const target = { tabId: tab.id };
  const [seen] = await chrome.scripting.executeScript({ target, world: 'MAIN', func: readPlayerCaptions });
  const parsed = PlayerCaptionsSchema.safeParse(seen?.result);
  // A player still holding the previous video (or none) has nothing for this one.
  if (!parsed.success || parsed.data.videoId !== videoId) return unavailable('no_captions');
  const languages = [navigator.language, ...(navigator.languages ?? [])].filter(Boolean);
  const track = pickCaptionTrack(parsed.data.tracks, languages);
  const url = track && captionUrl(track, href);
  if (!url) return unavailable('no_captions');
  const [fetched] = await chrome.scripting.executeScript({ target, func: fetchText, args: [url, MAX_CAPTION_CHARS] });
  // An empty body is what YouTube answers when it withholds a track (docs/tools.md, "Videos").
  const cues = typeof fetched?.result === 'string' ? parseCaptions(fetched.result) : null;
  if (!cues?.length) return unavailable('no_captions');
  const text = captionPageText(parsed.data.title, cues, pageTunables.captionSectionSeconds, pageTunables.captionMarkSeconds);
  const page: PageExtraction = {
    title: parsed.data.title,
    url: videoPageUrl(videoId),
    lang: track.languageCode,
    selection: '',
    text,
    kind: 'video',
    truncated: false,
  };
  return { ok: true, page };
}

/** In the tab: moves the video to `seconds` (the page's player follows its <video> element). */
function seekVideo(seconds: number): boolean {
  const video = document.querySelector('video');
  if (!video) return false;
  video.currentTime = seconds;
  return true;
}

/** Takes the user to a PDF page or a video time of an answer's source; null when the source has neither. */
export async function showMediaPlace(
  tab: chrome.tabs.Tab,
  place: { page?: number | undefined; seconds?: number | undefined },
): Promise<{ ok: boolean; message?: string } | null> {
  if (place.seconds !== undefined) {
    const [r] = await chrome.scripting.executeScript({ target: { tabId: tab.id! }, func: seekVideo, args: [place.seconds] });
    return r?.result === true ? { ok: true } : { ok: false, message: "I couldn't find the video on this page any more." };
  }
  if (place.page !== undefined) {
    // The viewer opens at the page named in the fragment (Chrome's PDF viewer reads #page=N).
    const url = new URL(tab.url ?? '');
    url.hash = `page=${place.page}`;
    await chrome.tabs.update(tab.id!, { url: url.href });
    return { ok: true };
  }
  return null;
}
