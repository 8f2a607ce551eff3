/**
 * A multipart/form-data body as bytes and its content type, encoded by Node's own FormData and
 * Response. undici's `request` takes a FormData body only from its own copy of the class, and which
 * copy works differs by Node: on Node 20 the npm package's, on Node 24 the global one (the other
 * fails in the body's stream with "action is not a function"). Bytes work with either.
 */
export async function multipartBody(
  fields: Record<string, string | { bytes: Uint8Array; type: string; name: string }>,
): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string') form.set(name, value);
    else form.set(name, new Blob([value.bytes], { type: value.type }), value.name);
  }
  const encoded = new Response(form);
  const contentType = encoded.headers.get('content-type');
  if (!contentType) throw new Error('multipartBody: no content type from the encoder');
  return { body: Buffer.from(await encoded.arrayBuffer()), contentType };
}
