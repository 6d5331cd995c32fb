// The `tesseract` engine: the native binary when it is on PATH, else tesseract.js.
import type { PixelEngine } from '../engine.js';
import { TesseractNative, findNativeTesseract } from './tesseract-native.js';
import { TesseractWasm } from './tesseract-wasm.js';

export type TesseractBackend = 'auto' | 'native' | 'wasm';

export function createTesseract(backend: TesseractBackend = 'auto'): PixelEngine {
  const native = backend === 'wasm' ? null : findNativeTesseract();
  if (backend === 'native' && !native) throw new Error('the native tesseract binary (4.0 or later) is not on PATH');
  return native ? new TesseractNative(native) : new TesseractWasm();
}

export { findNativeTesseract };
