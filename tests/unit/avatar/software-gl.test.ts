import { describe, expect, it } from 'vitest';
import { isSoftwareRendererName } from '../../../components/avatar/software-gl';

describe('software WebGL renderer names', () => {
  it('knows the CPU rasterisers by the names browsers report', () => {
    // Headless Chromium on the CI machine (WEBGL_debug_renderer_info, docs/avatar.md).
    expect(
      isSoftwareRendererName('ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader driver)'),
    ).toBe(true);
    expect(isSoftwareRendererName('llvmpipe (LLVM 15.0.6, 256 bits)')).toBe(true);
    expect(isSoftwareRendererName('ANGLE (Microsoft, Microsoft Basic Render Driver Direct3D11 vs_5_0 ps_5_0)')).toBe(true);
  });

  it('leaves hardware renderers alone', () => {
    expect(isSoftwareRendererName('ANGLE (NVIDIA, NVIDIA GeForce RTX 3060 (0x00002504) Direct3D11 vs_5_0 ps_5_0, D3D11)')).toBe(
      false,
    );
    expect(isSoftwareRendererName('ANGLE (Intel, Mesa Intel(R) UHD Graphics 620 (KBL GT2), OpenGL 4.6)')).toBe(false);
    expect(isSoftwareRendererName('Apple M2')).toBe(false);
  });
});
