// One page image with the canonical layout drawn over it: blocks, tables, key-values, a
// highlighted evidence box, and (when the caller wants them) clickable words.
import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { pageTexts } from './page-text';

export type BBox = [number, number, number, number];
export interface Word {
  text: string;
  bbox: BBox;
}
export interface CanonicalPage {
  page_number: number;
  width: number;
  height: number;
  source: string;
  blocks: { type: string; text: string; bbox: BBox; lines: { text: string; bbox: BBox; words: Word[] }[] }[];
  tables: { bbox: BBox; rows: number; cols: number }[];
  key_values: { key: string; value: string; key_bbox: BBox; value_bbox: BBox }[];
}
export interface Artifact {
  id: string;
  kind: string;
  page_number: number | null;
  filename: string;
  content_type: string;
  size_bytes: number | null;
}

/**
 * Fetches an artifact with the session's credentials and hands back an object URL, or the reason
 * it could not be fetched (a refused request, a network failure), so the page never waits forever.
 */
export function useArtifactUrl(artifactId: string | undefined): { url: string | null; error: string | null } {
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!artifactId) return;
    let revoked = false;
    let made: string | null = null;
    setError(null);
    api
      .GET('/v1/artifacts/{artifact_id}', { params: { path: { artifact_id: artifactId } }, parseAs: 'blob' })
      .then((res) => {
        if (revoked) return;
        if (!res.response.ok || !res.data) {
          setError(`The page image could not be loaded (${res.response.status}).`);
          return;
        }
        made = URL.createObjectURL(res.data as Blob);
        setUrl(made);
      })
      .catch(() => !revoked && setError('The page image could not be loaded: the server did not answer.'));
    return () => {
      revoked = true;
      if (made) URL.revokeObjectURL(made);
      setUrl(null);
    };
  }, [artifactId]);
  return { url, error };
}

export interface Layers {
  blocks: boolean;
  tables: boolean;
  keyValues: boolean;
}

interface Props {
  page: CanonicalPage;
  artifacts: Artifact[];
  layers: Layers;
  /** Boxes to highlight (every piece of evidence of the focused field). */
  highlights?: BBox[];
  /** Labelled boxes to mark (e.g. the evidence of every field of a template test). */
  marks?: { bbox: BBox; label: string }[];
  onWord?: (word: Word) => void;
}

const rect = ([x0, y0, x1, y1]: BBox) => ({ x: x0, y: y0, width: Math.max(0, x1 - x0), height: Math.max(0, y1 - y0) });

export function PageView({ page, artifacts, layers, highlights = [], marks = [], onWord }: Props) {
  const image = artifacts.find((a) => a.kind === 'page_image' && a.page_number === page.page_number);
  const { url, error } = useArtifactUrl(image?.id);
  const [broken, setBroken] = useState(false);
  useEffect(() => setBroken(false), [url]);
  const words = onWord ? page.blocks.flatMap((b) => b.lines.flatMap((l) => l.words)) : [];
  return (
    <figure className="page-view" style={{ aspectRatio: `${page.width} / ${page.height}` }} data-page={page.page_number}>
      {url ? (
        <img src={url} alt={`Page ${page.page_number}`} onError={() => setBroken(true)} />
      ) : error ? (
        <div className="page-placeholder" role="alert">{error}</div>
      ) : image ? (
        <div className="page-placeholder">Loading page image…</div>
      ) : (
        <div className="page-placeholder page-note">No page image for this page (a slide or a text file has none): its text is shown where the layout places it.</div>
      )}
      {url && broken && <div className="page-placeholder" role="alert">The page image could not be shown: the file is not an image this browser reads.</div>}
      <svg viewBox={`0 0 ${page.width} ${page.height}`} preserveAspectRatio="none" aria-label={`Layout of page ${page.page_number}`} role="img">
        {/* Without a page image the words themselves stand in for it, so evidence boxes sit on readable text. */}
        {!image &&
          pageTexts(page).map((t, i) => (
            <text key={`x${i}`} className="page-text" x={t.x} y={t.y} fontSize={t.size} {...(t.width !== undefined ? { textLength: t.width, lengthAdjust: 'spacingAndGlyphs' } : {})}>
              {t.text}
            </text>
          ))}
        {layers.blocks && page.blocks.map((b, i) => <rect key={`b${i}`} className={`box box-block box-${b.type}`} {...rect(b.bbox)}><title>{`${b.type}: ${b.text.slice(0, 80)}`}</title></rect>)}
        {layers.tables && page.tables.map((t, i) => <rect key={`t${i}`} className="box box-table" {...rect(t.bbox)}><title>{`table ${t.rows}×${t.cols}`}</title></rect>)}
        {layers.keyValues &&
          page.key_values.map((kv, i) => (
            <g key={`kv${i}`}>
              <rect className="box box-key" {...rect(kv.key_bbox)} />
              <rect className="box box-value" {...rect(kv.value_bbox)}><title>{`${kv.key}: ${kv.value}`}</title></rect>
            </g>
          ))}
        {marks.map((m, i) => (
          <rect key={`m${i}`} className="box box-mark" {...rect(m.bbox)}>
            <title>{m.label}</title>
          </rect>
        ))}
        {highlights.map((h, i) => <rect key={`h${i}`} className="box box-highlight" {...rect(h)} />)}
        {/* Words last, transparent, on top: a click on a highlighted word must reach the word. */}
        {words.map((w, i) => (
          <rect key={`w${i}`} className="word" {...rect(w.bbox)} onMouseDown={(e) => { e.preventDefault(); onWord?.(w); }}>
            <title>{w.text}</title>
          </rect>
        ))}
      </svg>
    </figure>
  );
}
