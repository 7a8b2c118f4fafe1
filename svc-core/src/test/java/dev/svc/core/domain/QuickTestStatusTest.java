package dev.svc.core.domain;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class QuickTestStatusTest {

  @Test
  void terminalStatesHaveNoWayOut() {
    for (QuickTestStatus terminal : new QuickTestStatus[] {QuickTestStatus.COMPLETED, QuickTestStatus.FAILED}) {
      for (QuickTestStatus target : QuickTestStatus.values()) {
        assertThat(terminal.canMoveTo(target)).as("%s → %s", terminal, target).isFalse();
      }
    }
  }

  @Test
  void realAgentsAndTestAgentsFollowTheProtocolPaths() {
    assertThat(QuickTestStatus.QUEUED.canMoveTo(QuickTestStatus.DISPATCHED)).isTrue();
    assertThat(QuickTestStatus.DISPATCHED.canMoveTo(QuickTestStatus.RUNNING)).isTrue();
    assertThat(QuickTestStatus.RUNNING.canMoveTo(QuickTestStatus.COMPLETED)).isTrue();
    assertThat(QuickTestStatus.QUEUED.canMoveTo(QuickTestStatus.RUNNING)).as("test agents skip dispatch").isTrue();
    assertThat(QuickTestStatus.DISPATCHED.canMoveTo(QuickTestStatus.QUEUED)).as("lease expiry requeues").isTrue();
    assertThat(QuickTestStatus.RUNNING.canMoveTo(QuickTestStatus.QUEUED)).isFalse();
    assertThat(QuickTestStatus.QUEUED.canMoveTo(QuickTestStatus.COMPLETED)).isFalse();
  }

  @Test
  void everyActiveStateCanBeCancelled() {
    for (QuickTestStatus s : QuickTestStatus.values()) {
      assertThat(s.isActive() ? s.canMoveTo(QuickTestStatus.FAILED) : !s.canMoveTo(QuickTestStatus.FAILED)).isTrue();
    }
  }

  @Test
  void parsesOnlyTheExactWireNames() {
    assertThat(QuickTestStatus.parse("running")).contains(QuickTestStatus.RUNNING);
    assertThat(QuickTestStatus.parse("RUNNING")).isEmpty();
    assertThat(QuickTestStatus.parse(" running")).isEmpty();
    assertThat(QuickTestStatus.parse(null)).isEmpty();
  }
}
