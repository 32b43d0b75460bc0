/**
 * Whether a transcript holds no words. whisper-cli writes nothing for silence with some models, and with others only
 * a non-speech marker: `[BLANK_AUDIO]`, `[ Silence ]`, `(silence)`, `[MUSIC]`, `*wind*`. A transcript of nothing but
 * such markers and punctuation has no words either.
 */
export function noSpeech(transcript: string): boolean {
  const words = transcript.replace(/\[[^\]]*\]|\([^)]*\)|\*[^*]*\*/g, ' ');
  return !/[\p{L}\p{N}]/u.test(words);
}

/** The machine-readable failure of a voice note in which whisper heard no words (Message.failure). */
export const NO_SPEECH = 'no_speech';
