package dev.svc.server.events;

import io.vertx.core.json.JsonObject;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * A client of the TCP event-bus bridge written from its frame format alone (4-byte big-endian
 * length, UTF-8 JSON), with blocking sockets on the test's thread: each read has a deadline, so a
 * frame that never comes fails the test instead of hanging it.
 */
final class BridgeClient implements AutoCloseable {

  private static final int READ_TIMEOUT_MS = 15_000;

  private final Socket socket;
  private final DataInputStream in;
  private final DataOutputStream out;

  private BridgeClient(Socket socket) throws IOException {
    this.socket = socket;
    socket.setSoTimeout(READ_TIMEOUT_MS);
    this.in = new DataInputStream(socket.getInputStream());
    this.out = new DataOutputStream(socket.getOutputStream());
  }

  /** Plain TCP to 127.0.0.1. */
  static BridgeClient plain(int port) throws IOException {
    return new BridgeClient(new Socket("127.0.0.1", port));
  }

  /** TLS to localhost, trusting only this CA file and checking the certificate's name. */
  static BridgeClient tls(int port, Path caFile) throws Exception {
    KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
    trust.load(null, null);
    try (InputStream pem = Files.newInputStream(caFile)) {
      trust.setCertificateEntry("svc-ca", CertificateFactory.getInstance("X.509").generateCertificate(pem));
    }
    TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trustManagers.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, trustManagers.getTrustManagers(), null);
    SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("localhost", port);
    SSLParameters parameters = socket.getSSLParameters();
    parameters.setEndpointIdentificationAlgorithm("HTTPS");
    socket.setSSLParameters(parameters);
    socket.startHandshake();
    return new BridgeClient(socket);
  }

  /** A frame with the token in its headers (null: no headers). */
  static JsonObject frame(String type, String address, String token) {
    JsonObject frame = new JsonObject().put("type", type);
    if (address != null) {
      frame.put("address", address);
    }
    if (token != null) {
      frame.put("headers", new JsonObject().put(EventBridge.TOKEN_HEADER, token));
    }
    return frame;
  }

  /**
   * Writes the frames in one write: a bridge that answers the first with an error and closes the
   * connection has then already been sent the rest, rather than refusing a second write.
   */
  void send(JsonObject... frames) throws IOException {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    DataOutputStream framed = new DataOutputStream(bytes);
    for (JsonObject frame : frames) {
      byte[] json = frame.encode().getBytes(StandardCharsets.UTF_8);
      framed.writeInt(json.length);
      framed.write(json);
    }
    out.write(bytes.toByteArray());
    out.flush();
  }

  /** The next frame; fails after the read timeout. */
  JsonObject read() throws IOException {
    JsonObject frame = readOrEnd();
    if (frame == null) {
      throw new EOFException("The bridge closed the connection");
    }
    return frame;
  }

  /** The next frame, or null when the bridge closed the connection. */
  JsonObject readOrEnd() throws IOException {
    int length;
    try {
      length = in.readInt();
    } catch (EOFException e) {
      return null;
    }
    byte[] json = new byte[length];
    in.readFully(json);
    return new JsonObject(new String(json, StandardCharsets.UTF_8));
  }

  /** Sends a ping and reads up to its pong: the frames sent before it have been handled. */
  void sync(String token) throws IOException {
    send(frame("ping", null, token));
    JsonObject frame = read();
    if (!"pong".equals(frame.getString("type"))) {
      throw new AssertionError("Expected a pong, got " + frame);
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
