// PDFium compiled to WebAssembly (@embedpdf/pdfium, MIT wrapper over BSD PDFium), loaded once
// per process from the .wasm that ships inside the npm package: nothing is fetched at run time.
// Init costs ~40-80 ms and ~90 MB, so the module is shared; every call into it is synchronous,
// so documents opened by concurrent runs never interleave inside one call.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { init, type WrappedPdfiumModule } from '@embedpdf/pdfium';
import { DEFAULT_PDFIUM_MEMORY_MB } from '../../../config.js';

/**
 * The raw wasm exports we call in hot loops. The cwrap'd functions on the module go through
 * ccall (argument conversion, stack save/restore) and cost several times more per call; a page
 * with 3,000 characters needs ~20,000 calls, so the text path calls the exports directly.
 */
export interface PdfiumRaw {
  malloc(size: number): number;
  free(ptr: number): void;
  FPDF_LoadMemDocument64(data: number, size: number, password: number): number;
  FPDF_CloseDocument(doc: number): void;
  FPDF_GetLastError(): number;
  FPDF_GetPageCount(doc: number): number;
  FPDF_LoadPage(doc: number, index: number): number;
  /** Finds the page's dictionary and reads its size, without parsing its content: 1 when the page exists. */
  FPDF_GetPageSizeByIndexF(doc: number, index: number, sizeF: number): number;
  FPDF_ClosePage(page: number): void;
  FPDF_GetPageWidthF(page: number): number;
  FPDF_GetPageHeightF(page: number): number;
  FPDFPage_GetRotation(page: number): number;
  FPDF_PageToDevice(page: number, sx: number, sy: number, w: number, h: number, rot: number, px: number, py: number, dx: number, dy: number): number;
  FPDFText_LoadPage(page: number): number;
  FPDFText_ClosePage(textPage: number): void;
  FPDFText_CountChars(textPage: number): number;
  FPDFText_GetUnicode(textPage: number, i: number): number;
  FPDFText_IsGenerated(textPage: number, i: number): number;
  FPDFText_HasUnicodeMapError(textPage: number, i: number): number;
  FPDFText_GetLooseCharBox(textPage: number, i: number, rectF: number): number;
  FPDFText_GetCharAngle(textPage: number, i: number): number;
  FPDFText_GetTextObject(textPage: number, i: number): number;
  FPDFTextObj_GetFont(textObj: number): number;
  FPDFFont_GetBaseFontName(font: number, buf: number, len: number): number;
  FPDFFont_GetWeight(font: number): number;
  FPDFFont_GetFlags(font: number): number;
  FPDFPage_CountObjects(page: number): number;
  FPDFPage_GetObject(page: number, i: number): number;
  FPDFFormObj_CountObjects(form: number): number;
  FPDFFormObj_GetObject(form: number, i: number): number;
  FPDFPageObj_GetType(obj: number): number;
  FPDFPageObj_GetBounds(obj: number, l: number, b: number, r: number, t: number): number;
  FPDFPageObj_GetStrokeWidth(obj: number, w: number): number;
  FPDFPageObj_GetMatrix(obj: number, m: number): number;
  FPDFPath_CountSegments(path: number): number;
  FPDFPath_GetPathSegment(path: number, i: number): number;
  FPDFPath_GetDrawMode(path: number, fillMode: number, stroke: number): number;
  FPDFPathSegment_GetPoint(seg: number, x: number, y: number): number;
  FPDFPathSegment_GetType(seg: number): number;
  FPDFPathSegment_GetClose(seg: number): number;
  /** 0 when the document has no interactive form (fpdf_formfill.h FORMTYPE_NONE). */
  FPDF_GetFormType(doc: number): number;
  /** A form-fill info struct with no callbacks (no JavaScript, no UI); the wrapper owns it. */
  PDFiumExt_OpenFormFillInfo(): number;
  PDFiumExt_CloseFormFillInfo(info: number): void;
  PDFiumExt_InitFormFillEnvironment(doc: number, info: number): number;
  PDFiumExt_ExitFormFillEnvironment(form: number): void;
  FORM_OnAfterLoadPage(page: number, form: number): void;
  FORM_OnBeforeClosePage(page: number, form: number): void;
  FPDF_FFLDraw(form: number, bitmap: number, page: number, x: number, y: number, w: number, h: number, rot: number, flags: number): void;
  FPDFPage_GetAnnotCount(page: number): number;
  FPDFPage_GetAnnot(page: number, i: number): number;
  FPDFPage_CloseAnnot(annot: number): void;
  FPDFAnnot_GetSubtype(annot: number): number;
  FPDFAnnot_GetFlags(annot: number): number;
  FPDFAnnot_GetRect(annot: number, rectF: number): number;
  FPDFAnnot_GetStringValue(annot: number, key: number, buf: number, len: number): number;
  FPDFAnnot_GetFontSize(form: number, annot: number, value: number): number;
  FPDFAnnot_GetFormFieldType(form: number, annot: number): number;
  FPDFAnnot_GetFormFieldFlags(form: number, annot: number): number;
  FPDFAnnot_GetFormFieldValue(form: number, annot: number, buf: number, len: number): number;
  FPDFAnnot_IsChecked(form: number, annot: number): number;
  FPDFAnnot_GetOptionCount(form: number, annot: number): number;
  FPDFAnnot_GetOptionLabel(form: number, annot: number, index: number, buf: number, len: number): number;
  FPDFAnnot_IsOptionSelected(form: number, annot: number, index: number): number;
  /** /Q of the annotation: 0 left, 1 centred, 2 right. */
  EPDFAnnot_GetTextAlignment(annot: number): number;
}

export interface Pdfium {
  module: WrappedPdfiumModule;
  raw: PdfiumRaw;
  /** 128 bytes of scratch memory for out-parameters, allocated once. */
  scratch: number;
  /** Whether a growth of its memory was refused (past the bound, or by the system). */
  readonly memoryRefused: boolean;
  heapF32(): Float32Array;
  heapF64(): Float64Array;
  heap32(): Int32Array;
  heapU8(): Uint8Array;
}

let loading: Promise<Pdfium> | undefined;
/** The instance last loaded, to tell after a trap whether it had run out of memory. */
let latest: Pdfium | undefined;

const MiB = 1024 * 1024;
const WASM_PAGE = 65_536;
/** Wasm memory an instance may grow to; the build itself would grow to 2 GB. */
let memoryLimitBytes = DEFAULT_PDFIUM_MEMORY_MB * MiB;

/** Sets the wasm memory bound of instances loaded from now on (QUIRE_PDFIUM_MEMORY_MB). */
export function setPdfiumMemoryLimit(megabytes: number): void {
  if (megabytes * MiB === memoryLimitBytes) return;
  memoryLimitBytes = megabytes * MiB;
  discardPdfium();
}

export const pdfiumMemoryLimitBytes = (): number => memoryLimitBytes;

/** Bytes of wasm memory the last loaded PDFium instance holds (0 before any loaded). */
export const pdfiumMemoryBytes = (): number => latest?.heapU8().length ?? 0;

/** Whether the last loaded instance was refused memory it asked for: its next abort is running out, not a broken file. */
export const pdfiumRanOutOfMemory = (): boolean => latest?.memoryRefused ?? false;

export function loadPdfium(): Promise<Pdfium> {
  loading ??= initPdfium().catch((err: unknown) => {
    loading = undefined; // a failed init (out of memory) may succeed on the next document
    throw err;
  });
  return loading;
}

/**
 * Drops the shared instance after a WebAssembly trap: PDFium's heap may be inconsistent past
 * that point, so the next document gets a fresh module (the old one is garbage collected).
 */
export function discardPdfium(): void {
  loading = undefined;
  latest = undefined;
}

type Imports = WebAssembly.Imports & { env: Record<string, unknown> };

/**
 * The runtime prints "Aborted(…)" to stderr before a trap, outside the process's JSON log. The
 * trap's own message says the same and becomes the job's error (failure.ts), so that line is
 * dropped; anything else the runtime prints still reaches stderr.
 */
function printRuntimeError(line: string): void {
  if (!line.startsWith('Aborted(')) process.stderr.write(`${line}\n`);
}

/** The compiled module, kept across instances: a fresh instance after a trap skips compiling. */
let compiled: Promise<{ binary: ArrayBuffer; module: WebAssembly.Module }> | undefined;

function compilePdfium(): Promise<{ binary: ArrayBuffer; module: WebAssembly.Module }> {
  compiled ??= (async () => {
    const wasm = readFileSync(createRequire(import.meta.url).resolve('@embedpdf/pdfium/pdfium.wasm'));
    const binary = wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer;
    return { binary, module: await WebAssembly.compile(binary) };
  })();
  return compiled;
}

async function initPdfium(): Promise<Pdfium> {
  const { binary, module: wasmModule } = await compilePdfium();
  const limit = memoryLimitBytes;
  const state = { memoryRefused: false };
  // The module's memory is its own export (not imported), so its maximum is the build's 2 GB.
  // The bound is kept where the memory grows: the runtime's emscripten_resize_heap import refuses
  // a request past it, and the memory's grow clamps the runtime's extra margin (up to a fifth
  // more) to it. A refused growth makes PDFium's malloc fail, which aborts the call with a trap.
  const module = await init({
    wasmBinary: binary,
    printErr: printRuntimeError,
    instantiateWasm: (imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance) => WebAssembly.Exports) => {
      const env = (imports as Imports).env;
      const resize = env.emscripten_resize_heap as (requested: number) => boolean;
      const bounded = (requested: number): boolean => {
        const grown = requested >>> 0 <= limit && resize(requested);
        if (!grown) state.memoryRefused = true;
        return grown;
      };
      const instance = new WebAssembly.Instance(wasmModule, { ...imports, env: { ...env, emscripten_resize_heap: bounded } });
      const memory = instance.exports.memory as WebAssembly.Memory;
      const grow = memory.grow.bind(memory);
      memory.grow = (pages: number) => grow(Math.min(pages, Math.floor((limit - memory.buffer.byteLength) / WASM_PAGE)));
      // Synchronous, so a failure rejects init() through the runtime's own catch; the runtime
      // takes the exports we return as the instance's.
      return receive(instance);
    },
  });
  module.PDFiumExt_Init();
  const raw = module.pdfium.wasmExports as unknown as PdfiumRaw;
  const em = module.pdfium as unknown as Record<'HEAPF32' | 'HEAPF64' | 'HEAP32' | 'HEAPU8', ArrayBufferView>;
  // The heap views are replaced when wasm memory grows, so they are read afresh on every use.
  return (latest = {
    module,
    raw,
    scratch: raw.malloc(128),
    get memoryRefused() {
      return state.memoryRefused;
    },
    heapF32: () => em.HEAPF32 as Float32Array,
    heapF64: () => em.HEAPF64 as Float64Array,
    heap32: () => em.HEAP32 as Int32Array,
    heapU8: () => em.HEAPU8 as Uint8Array,
  });
}
