package dev.svc.engines.lifecycle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** A TCP port on 127.0.0.1 that nothing listens on right now, for an engine svc starts. */
public final class LoopbackPort {

  private LoopbackPort() {}

  public static int free() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("No free port on 127.0.0.1: " + e.getMessage(), e);
    }
  }
}
