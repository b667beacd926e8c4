/** C0 and C1 control characters, DEL among them (ESC, BEL, the one-byte CSI 0x9b...). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Text from the server with its control characters shown as `\x1b` escapes: a hostname or an
 * error message cannot move the cursor, retitle the window or ring the bell of the reader.
 */
export function visible(text: string): string {
  return text.replace(CONTROL, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
