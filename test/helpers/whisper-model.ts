import fs from 'node:fs';

/**
 * Writes a weightless ggml whisper model: the tiny.en hyper-parameters (or SMALLEST_HPARAMS), the real 80 x 201 mel
 * filter bank and a placeholder vocabulary, but no tensors. whisper.cpp 1.9.1 logs "no tensors loaded from model file - assuming empty
 * model for testing", runs the whole pipeline (audio load, mel, decoder loop) and writes an empty transcript. Good for
 * pipeline tests; it recognises nothing.
 *
 * Layout (little-endian, as `models/convert-pt-to-ggml.py` writes it and `whisper_model_load` reads it):
 *   int32 magic 0x67676d6c ("ggml")
 *   int32 x 11 hparams: n_vocab, n_audio_ctx, n_audio_state, n_audio_head, n_audio_layer, n_text_ctx, n_text_state,
 *                        n_text_head, n_text_layer, n_mels, ftype
 *   int32 n_mel, int32 n_fft, float32[n_mel * n_fft] mel filters (row-major, one row per mel band)
 *   int32 n_tokens, then per token: uint32 byte length, bytes
 *   (tensors would follow: none here)
 */
export const TINY_EN_HPARAMS = {
  n_vocab: 51864,
  n_audio_ctx: 1500,
  n_audio_state: 384,
  n_audio_head: 6,
  n_audio_layer: 4,
  n_text_ctx: 448,
  n_text_state: 384,
  n_text_head: 6,
  n_text_layer: 4,
  n_mels: 80,
  ftype: 1,
} as const;

/**
 * tiny.en one layer deep and 64 wide on each side: whisper-cli runs the same pipeline on it and writes the same empty
 * transcript for a seventh of the CPU (0.2 s instead of 1.6 s for a 4 s note), for tests about the pipeline rather
 * than about whisper's cost (benchmarks keep the tiny.en shape).
 */
export const SMALLEST_HPARAMS = {
  ...TINY_EN_HPARAMS,
  n_audio_state: 64,
  n_audio_head: 1,
  n_audio_layer: 1,
  n_text_state: 64,
  n_text_head: 1,
  n_text_layer: 1,
} as const;

type Hparams = { readonly [K in keyof typeof TINY_EN_HPARAMS]: number };

const GGML_MAGIC = 0x67676d6c;
const SAMPLE_RATE = 16000;
const N_FFT = 400;
/** GPT-2 tokens stored by the converter for the English-only models; whisper.cpp adds the special tokens itself. */
const N_TOKENS = 50256;
/** whisper-cli looks up token 220 (" ") and aborts with `map::at` when it is absent. */
const SPACE_TOKEN = 220;

// Slaney mel scale, as librosa.filters.mel (htk=False, norm='slaney') which Whisper's mel_filters.npz came from.
const F_SP = 200 / 3;
const MIN_LOG_HZ = 1000;
const MIN_LOG_MEL = MIN_LOG_HZ / F_SP;
const LOGSTEP = Math.log(6.4) / 27;

function hzToMel(hz: number): number {
  return hz >= MIN_LOG_HZ ? MIN_LOG_MEL + Math.log(hz / MIN_LOG_HZ) / LOGSTEP : hz / F_SP;
}

function melToHz(mel: number): number {
  return mel >= MIN_LOG_MEL ? MIN_LOG_HZ * Math.exp(LOGSTEP * (mel - MIN_LOG_MEL)) : F_SP * mel;
}

/** librosa.filters.mel(sr=16000, n_fft=400, n_mels) as float32, row-major [n_mels][1 + n_fft / 2]. */
export function melFilterBank(nMels: number = TINY_EN_HPARAMS.n_mels): Float32Array {
  const nFreq = 1 + N_FFT / 2;
  const fftFreqs = Array.from({ length: nFreq }, (_, k) => (k * SAMPLE_RATE) / N_FFT);
  const melMax = hzToMel(SAMPLE_RATE / 2);
  const melF = Array.from({ length: nMels + 2 }, (_, i) => melToHz((melMax * i) / (nMels + 1)));
  const out = new Float32Array(nMels * nFreq);
  for (let m = 0; m < nMels; m++) {
    const [lo, mid, hi] = [melF[m]!, melF[m + 1]!, melF[m + 2]!];
    const enorm = 2 / (hi - lo);
    for (let k = 0; k < nFreq; k++) {
      const f = fftFreqs[k]!;
      const lower = (f - lo) / (mid - lo);
      const upper = (hi - f) / (hi - mid);
      out[m * nFreq + k] = Math.max(0, Math.min(lower, upper)) * enorm;
    }
  }
  return out;
}

/** The bytes of the weightless model (see the layout above). */
export function weightlessModelBytes(h: Hparams = TINY_EN_HPARAMS): Buffer {
  const nFreq = 1 + N_FFT / 2;
  const header = Buffer.alloc(4 * 12 + 4 * 2);
  const ints = [
    GGML_MAGIC,
    h.n_vocab,
    h.n_audio_ctx,
    h.n_audio_state,
    h.n_audio_head,
    h.n_audio_layer,
    h.n_text_ctx,
    h.n_text_state,
    h.n_text_head,
    h.n_text_layer,
    h.n_mels,
    h.ftype,
    h.n_mels,
    nFreq,
  ];
  ints.forEach((v, i) => header.writeInt32LE(v, i * 4));

  const mel = melFilterBank(h.n_mels);
  const filters = Buffer.alloc(mel.length * 4);
  mel.forEach((v, i) => filters.writeFloatLE(v, i * 4));

  const parts: Buffer[] = [header, filters];
  const count = Buffer.alloc(4);
  count.writeInt32LE(N_TOKENS, 0);
  parts.push(count);
  for (let i = 0; i < N_TOKENS; i++) {
    const word = Buffer.from(i === SPACE_TOKEN ? ' ' : `<|t${i}|>`, 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32LE(word.length, 0);
    parts.push(len, word);
  }
  return Buffer.concat(parts);
}

/** Writes the weightless model (tiny.en-shaped unless told) to `file` and returns the path. */
export function writeWeightlessModel(file: string, hparams: Hparams = TINY_EN_HPARAMS): string {
  fs.writeFileSync(file, weightlessModelBytes(hparams));
  return file;
}
