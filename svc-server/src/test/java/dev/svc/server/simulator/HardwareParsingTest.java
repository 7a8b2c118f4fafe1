package dev.svc.server.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What the simulator reads out of a GPU's name and a model's path. */
class HardwareParsingTest {

  @Test
  void vramComesFromTheGpuName() {
    assertThat(GpuSpecs.vramGb("NVIDIA H100 80GB HBM3")).isEqualTo(80);
    assertThat(GpuSpecs.vramGb("NVIDIA A100-SXM4-40GB")).isEqualTo(40);
    assertThat(GpuSpecs.vramGb("NVIDIA GH200 96 GB")).isEqualTo(96);
    assertThat(GpuSpecs.vramGb("NVIDIA H200 141GB HBM3e")).isEqualTo(141);
    assertThat(GpuSpecs.vramGb("NVIDIA GeForce RTX 4090")).isEqualTo(GpuSpecs.DEFAULT_VRAM_GB);
    assertThat(GpuSpecs.vramGb(null)).isEqualTo(24);
  }

  @Test
  void computeCapabilityComesFromTheFamily() {
    assertThat(GpuSpecs.computeCapability("NVIDIA H100 80GB HBM3")).containsExactly(9, 0);
    assertThat(GpuSpecs.computeCapability("NVIDIA A100-SXM4-40GB")).containsExactly(8, 0);
    assertThat(GpuSpecs.computeCapability("NVIDIA A10G")).containsExactly(8, 6);
    assertThat(GpuSpecs.computeCapability("NVIDIA L40S 48GB")).containsExactly(8, 9);
    assertThat(GpuSpecs.computeCapability("NVIDIA L4")).containsExactly(8, 9);
    assertThat(GpuSpecs.computeCapability("Tesla T4")).containsExactly(7, 5);
  }

  @Test
  void modelSizeComesFromThePath() {
    assertThat(ModelSize.billions("/models/llama-3-8b")).isEqualTo(8);
    assertThat(ModelSize.billions("/models/Meta-Llama-3.1-70B-Instruct")).isEqualTo(70);
    assertThat(ModelSize.billions("/models/Qwen2.5-0.5B-Instruct")).isEqualTo(0.5);
    assertThat(ModelSize.billions("/models/llama-2-13b-chat.Q4_K_M.gguf")).isEqualTo(13);
    assertThat(ModelSize.billions("/models/mistral")).isEqualTo(ModelSize.DEFAULT_BILLIONS);
    assertThat(ModelSize.name("/models/llama-3-8b/")).isEqualTo("llama-3-8b");
  }
}
