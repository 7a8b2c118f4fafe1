package dev.svc.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.svc.core.domain.QuickTestStatus;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/**
 * The server's answers that svc-agent reads (a cancel, a signed certificate, an archive's digest):
 * what the server writes parses back to the same answer, and a malformed one is refused with one
 * sentence.
 */
class ServerAnswersTest {

  static final String PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  static final String SHA = "0123456789abcdef".repeat(4);

  @Test
  void aCancelAnswerRoundTripsAndDefaultsToWhatACancelDoes() {
    CancelAnswer sent = new CancelAnswer(QuickTestStatus.FAILED, CancelAnswer.CANCELLED);
    JsonObject wire = sent.toJson();
    assertThat(wire)
        .isEqualTo(new JsonObject().put("ok", true).put("status", "failed").put("error", "Cancelled by user"));
    assertThat(CancelAnswer.parse(new JsonObject(wire.encode()))).isEqualTo(sent);
    assertThat(CancelAnswer.parse(new JsonObject().put("ok", true))).isEqualTo(sent);
  }

  @Test
  void aMalformedCancelAnswerIsRefused() {
    assertThatThrownBy(() -> CancelAnswer.parse(new JsonObject().put("status", "gone")))
        .isInstanceOf(BadMessage.class)
        .hasMessage("Field 'status' must be queued, dispatched, running, completed or failed");
    assertThatThrownBy(() -> CancelAnswer.parse(new JsonObject().put("status", 3)))
        .hasMessage("Field 'status' must be a string");
    assertThatThrownBy(() -> CancelAnswer.parse(new JsonObject().put("error", "a\nb")))
        .hasMessageStartingWith("Field 'error' must not contain control");
    assertThatThrownBy(() -> CancelAnswer.parse(new JsonObject().put("error", "x".repeat(1025))))
        .hasMessage("Field 'error' must be at most 1024 characters");
  }

  @Test
  void aCertificateAnswerRoundTripsWithItsPemAsSent() {
    CertificateAnswer sent = new CertificateAnswer(PEM, PEM, "AB:CD", "2027-01-02T03:04:05.000Z");
    CertificateAnswer read = CertificateAnswer.parse(new JsonObject(sent.toJson().encode()));
    assertThat(read).isEqualTo(sent);
    assertThat(read.certificatePem()).as("not trimmed: it is written to a file as it is").endsWith("\n");
    CertificateAnswer bare = CertificateAnswer.parse(new JsonObject().put("certificate", PEM));
    assertThat(bare.caPem()).isNull();
    assertThat(bare.notAfter()).isNull();
  }

  @Test
  void aMalformedCertificateAnswerIsRefused() {
    assertThatThrownBy(() -> CertificateAnswer.parse(new JsonObject().put("error", "no")))
        .isInstanceOf(BadMessage.class).hasMessage("Field 'certificate' is required");
    assertThatThrownBy(() -> CertificateAnswer.parse(new JsonObject().put("certificate", " \n")))
        .hasMessage("Field 'certificate' is required");
    assertThatThrownBy(() -> CertificateAnswer.parse(new JsonObject().put("certificate", 42)))
        .hasMessage("Field 'certificate' must be a string");
    assertThatThrownBy(() -> CertificateAnswer.parse(new JsonObject().put("certificate", "x".repeat(65_537))))
        .hasMessage("Field 'certificate' must be at most 65536 characters");
    assertThatThrownBy(() -> CertificateAnswer.parse(new JsonObject().put("certificate", "\u001b[2J" + PEM)))
        .hasMessageStartingWith("Field 'certificate' must not contain control");
    assertThatThrownBy(() -> CertificateAnswer.parse(new JsonObject().put("certificate", PEM).put("not_after", 5)))
        .hasMessage("Field 'not_after' must be a string");
  }

  @Test
  void anArchiveDigestRoundTripsAndIsReadInLowerCase() {
    ArchiveDigest sent = new ArchiveDigest("svc-agent.tar.gz", SHA);
    assertThat(ArchiveDigest.parse(new JsonObject(sent.toJson().encode()))).isEqualTo(sent);
    assertThat(ArchiveDigest.parse(new JsonObject().put("sha256", " " + SHA.toUpperCase() + " ")))
        .isEqualTo(new ArchiveDigest(null, SHA));
  }

  @Test
  void aMalformedArchiveDigestIsRefused() {
    assertThatThrownBy(() -> ArchiveDigest.parse(new JsonObject().put("filename", "a.tar.gz")))
        .isInstanceOf(BadMessage.class).hasMessage("Field 'sha256' is required");
    assertThatThrownBy(() -> ArchiveDigest.parse(new JsonObject().put("sha256", "abc")))
        .hasMessage("Field 'sha256' must be 64 hexadecimal digits");
    assertThatThrownBy(() -> ArchiveDigest.parse(new JsonObject().put("sha256", SHA).put("filename", "../x")))
        .hasMessage("Field 'filename' must be a file name, not a path");
    assertThatThrownBy(() -> ArchiveDigest.parse(new JsonObject().put("sha256", SHA).put("filename", "x".repeat(256))))
        .hasMessage("Field 'filename' must be at most 255 characters");
    assertThatThrownBy(() -> ArchiveDigest.parse(new JsonObject().put("sha256", SHA).put("filename", true)))
        .hasMessage("Field 'filename' must be a string");
  }
}
