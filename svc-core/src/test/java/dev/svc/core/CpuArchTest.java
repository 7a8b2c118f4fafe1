package dev.svc.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CpuArchTest {

  @Test
  void aliasesNormaliseToOneName() {
    assertThat(CpuArch.normalize("x86_64")).isEqualTo("amd64");
    assertThat(CpuArch.normalize("AMD64")).isEqualTo("amd64");
    assertThat(CpuArch.normalize("aarch64")).isEqualTo("arm64");
    assertThat(CpuArch.normalize("arm64")).isEqualTo("arm64");
    assertThat(CpuArch.normalize("riscv64")).isEqualTo("riscv64");
    assertThat(CpuArch.normalize(null)).isEmpty();
  }

  @Test
  void timestampsAreUtcWithMillisecondsAndZ() {
    assertThat(Timestamps.now()).matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z");
    assertThat(Timestamps.normalize("2026-11-22T11:00:00+01:00")).contains("2026-11-22T10:00:00.000Z");
    assertThat(Timestamps.normalize("yesterday")).isEmpty();
  }

  @Test
  void idsAndTokensHaveTheProtocolFormats() {
    assertThat(Ids.newId()).matches("[0-9a-f]{16}");
    assertThat(Ids.newToken()).matches("[0-9a-f]{64}");
    assertThat(Ids.newId()).isNotEqualTo(Ids.newId());
  }
}
