package dev.svc.core.domain;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ImageReferenceTest {

  @Test
  void dockerReferencesAreAccepted() {
    for (String ok : new String[] {"alpine", "alpine:3.20", "library/alpine", "docker.io/library/alpine:latest",
        "registry.example.com:5000/team/kitt-runner:1.6.2", "localhost/svc-local/llama-server:cpu",
        "[::1]:5000/img", "ghcr.io/org/img@sha256:" + "0123456789abcdef".repeat(4),
        "ghcr.io/org/img:v1@sha256:" + "0123456789abcdef".repeat(4), "a__b/c.d-e", "Registry.Example.com/x"}) {
      assertThat(ImageReference.isValid(ok)).as(ok).isTrue();
    }
  }

  @Test
  void flagsShellAndMalformedNamesAreRefused() {
    for (String bad : new String[] {"", "-v", "--privileged", "-alpine", "alpine --privileged", "alpine;id",
        "$(id)", "`id`", "Alpine", "alpine:", "alpine:-x", ":tag", "a//b", "a/", "/a", "a..b", "a_-b",
        "alpine@sha256:short", "alpine:" + "t".repeat(129), "x/" + "a".repeat(260), "alpine\n", "a\u001b"}) {
      assertThat(ImageReference.isValid(bad)).as(bad).isFalse();
    }
    assertThat(ImageReference.isValid(null)).isFalse();
  }
}
