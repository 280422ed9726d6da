/**
 * GLTFExporter's binary path uses the browser's FileReader to turn Blobs into ArrayBuffers. Node 20 has Blob but no
 * FileReader; this is the minimal subset the exporter calls (readAsArrayBuffer + onloadend/result).
 */
class NodeFileReader {
  result: ArrayBuffer | string | null = null;
  onloadend: ((this: NodeFileReader) => void) | null = null;
  onload: ((this: NodeFileReader) => void) | null = null;

  readAsArrayBuffer(blob: Blob): void {
    void blob.arrayBuffer().then((buf) => {
      this.result = buf;
      this.onload?.call(this);
      this.onloadend?.call(this);
    });
  }

  readAsDataURL(blob: Blob): void {
    void blob.arrayBuffer().then((buf) => {
      this.result = `data:${blob.type || 'application/octet-stream'};base64,${Buffer.from(buf).toString('base64')}`;
      this.onload?.call(this);
      this.onloadend?.call(this);
    });
  }
}

export function installNodePolyfills(): void {
  const g = globalThis as unknown as Record<string, unknown>;
  if (typeof g.FileReader === 'undefined') g.FileReader = NodeFileReader;
}
