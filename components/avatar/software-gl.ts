/**
 * Whether WebGL here is drawn by the CPU (SwiftShader, llvmpipe: a virtual machine, a blocklisted GPU, a remote
 * desktop). There a frame of the avatar costs the CPU that the speech models need: on the 2-core CI machine one idle
 * side panel kept a core busy in the GPU process at 5 frames a second (docs/avatar.md, "On a software renderer").
 */

/** Renderer names of CPU rasterisers, as WebGL reports them through WEBGL_debug_renderer_info. */
const SOFTWARE_RENDERER = /swiftshader|llvmpipe|softpipe|software rasterizer|microsoft basic render/i;

export function isSoftwareRendererName(name: string): boolean {
  return SOFTWARE_RENDERER.test(name);
}

/** Asks a throwaway WebGL context for the renderer's name; false when it cannot tell (no WebGL, no debug info). */
export function detectSoftwareRenderer(): boolean {
  if (typeof document === 'undefined') return false;
  const gl = document.createElement('canvas').getContext('webgl');
  if (!gl) return false;
  try {
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const name = info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER);
    return typeof name === 'string' && isSoftwareRendererName(name);
  } finally {
    gl.getExtension('WEBGL_lose_context')?.loseContext();
  }
}
