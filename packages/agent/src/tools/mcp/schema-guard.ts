// A tool's input schema goes to the model provider as it is; Berth never compiles it (the SDK is
// given a validator that accepts everything, connection.ts), so a JSON Schema bomb costs nothing
// but its size. What is too large or too deep to pass on is left out with the tool.
export const MAX_SCHEMA_CHARS = 16_384;
export const MAX_SCHEMA_DEPTH = 16;
export const MAX_DESCRIPTION_CHARS = 1_024;

/** Why this schema is not offered to the model, or undefined when it may be. */
export function schemaProblem(schema: unknown): string | undefined {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return 'its input schema is not an object';
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch {
    return 'its input schema cannot be serialised';
  }
  if (text.length > MAX_SCHEMA_CHARS) return `its input schema is larger than ${MAX_SCHEMA_CHARS / 1024} KB`;
  if (depth(schema, 0) > MAX_SCHEMA_DEPTH) return `its input schema nests deeper than ${MAX_SCHEMA_DEPTH} levels`;
  return undefined;
}

function depth(value: unknown, level: number): number {
  if (level > MAX_SCHEMA_DEPTH || !value || typeof value !== 'object') return level;
  let deepest = level;
  for (const v of Object.values(value)) deepest = Math.max(deepest, depth(v, level + 1));
  return deepest;
}
