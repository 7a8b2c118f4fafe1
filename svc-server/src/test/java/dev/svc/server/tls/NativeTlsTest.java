package dev.svc.server.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.vertx.core.net.OpenSSLEngineOptions;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The HTTPS listener's handshakes run in BoringSSL on the platforms svc-server ships it for. */
class NativeTlsTest {

  @Test
  void onLinuxTheListenerUsesBoringSsl() {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch");
    assumeTrue(os.contains("linux") && (arch.equals("amd64") || arch.equals("aarch64")), "BoringSSL ships for Linux only");
    assumeTrue(!"jdk".equalsIgnoreCase(System.getenv("SVC_TLS_ENGINE")), "SVC_TLS_ENGINE=jdk asks for the JDK's TLS");
    assertThat(OpenSSLEngineOptions.isAvailable()).as("netty-tcnative loads: %s", OpenSSLEngineOptions.isAvailable()
        ? "" : io.netty.handler.ssl.OpenSsl.unavailabilityCause()).isTrue();
    assertThat(ServerTls.nativeTls()).isTrue();
  }
}
