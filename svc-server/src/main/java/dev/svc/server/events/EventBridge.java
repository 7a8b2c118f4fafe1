package dev.svc.server.events;

import dev.svc.core.events.EventAddresses;
import dev.svc.core.protocol.BadMessage;
import dev.svc.core.protocol.Fields;
import dev.svc.server.http.AuthThrottle;
import dev.svc.server.http.Guard;
import dev.svc.server.tls.ServerTls;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import io.vertx.ext.bridge.BridgeEventType;
import io.vertx.ext.bridge.BridgeOptions;
import io.vertx.ext.bridge.PermittedOptions;
import io.vertx.ext.eventbus.bridge.tcp.BridgeEvent;
import io.vertx.ext.eventbus.bridge.tcp.TcpEventBusBridge;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TCP event-bus bridge of {@code svc web --bridge-port} (docs/events.md): programs in any
 * language receive the stored events as they are published, in frames of a 4-byte big-endian
 * length and UTF-8 JSON. It only delivers: a client may register on {@link EventAddresses#ALL} and
 * {@code svc.events.<source_id>}, and every send or publish is refused. When the server has a
 * token, every frame must carry it as {@code "headers":{"token":"…"}}; a frame without it, or with
 * a wrong one, is answered with an {@code err} frame and the connection is closed. Wrong tokens count
 * against their address in the API's {@link AuthThrottle}, since they guess the same secret.
 */
public final class EventBridge extends VerticleBase {

  /** The header of a frame that holds the server's token. */
  public static final String TOKEN_HEADER = "token";

  /**
   * The per-source addresses, all but {@link EventAddresses#PUBLISH}: that one is a request address,
   * and a client registered on it would take requests meant for the server's event log.
   */
  static final String SOURCE_ADDRESSES = "svc\\.events\\.(?!publish$).+";

  /**
   * Port 0 listens on this shared random port instead (the HTTP listeners share -1), so that a
   * second listener on it can tell which port the bridge took: the bridge does not say.
   */
  private static final int SHARED_RANDOM_PORT = -2;

  private static final Logger LOG = LoggerFactory.getLogger(EventBridge.class);

  private final NetServerOptions options;
  private final Guard guard;
  /** Connections refused for their token, closing: the frames they had sent already are dropped unanswered. */
  private final Set<NetSocket> closing = ConcurrentHashMap.newKeySet();
  private TcpEventBusBridge bridge;
  private volatile int actualPort;

  /** {@code tls} null: plain TCP (--insecure). */
  public EventBridge(String host, int port, ServerTls tls, Guard guard) {
    NetServerOptions net = new NetServerOptions().setHost(host).setPort(port == 0 ? SHARED_RANDOM_PORT : port);
    this.options = tls == null ? net : tls.applyToBridge(net);
    this.guard = guard;
  }

  /** What a client may register on; nothing may come in. */
  static BridgeOptions permitted() {
    return new BridgeOptions()
        .addOutboundPermitted(new PermittedOptions().setAddress(EventAddresses.ALL))
        .addOutboundPermitted(new PermittedOptions().setAddressRegex(SOURCE_ADDRESSES));
  }

  @Override
  public Future<?> start() {
    bridge = TcpEventBusBridge.create(vertx, permitted(), options, this::check);
    return bridge.listen().compose(b -> options.getPort() == SHARED_RANDOM_PORT ? sharedPort()
        : Future.succeededFuture(options.getPort())).onSuccess(port -> actualPort = port);
  }

  /**
   * The port the bridge took: a second listener joins the shared random port, reads it and leaves.
   * A connection that reaches it meanwhile (nobody knows the port yet) is closed.
   */
  private Future<Integer> sharedPort() {
    NetServer probe = vertx.createNetServer(new NetServerOptions(options));
    probe.connectHandler(NetSocket::close);
    return probe.listen().compose(p -> {
      int port = probe.actualPort();
      return probe.close().map(port);
    });
  }

  @Override
  public Future<?> stop() {
    return bridge == null ? Future.succeededFuture() : bridge.close();
  }

  /** The port the bridge listens on (known once deployed). */
  public int actualPort() {
    return actualPort;
  }

  /** Each frame a client sends, before the bridge acts on it: the token, then the direction. */
  private void check(BridgeEvent event) {
    BridgeEventType type = event.type();
    if (type == BridgeEventType.REGISTERED) {
      event.complete(true); // the register frame was checked already
      return;
    }
    if (closing.contains(event.socket())) {
      event.complete(false);
      return;
    }
    JsonObject frame = event.getRawMessage() == null ? new JsonObject() : event.getRawMessage();
    String client = clientKey(event.socket());
    String refusal = authenticate(frame, client);
    if (refusal != null) {
      refuse(event, frame, client, refusal, true);
    } else if (type == BridgeEventType.SEND || type == BridgeEventType.PUBLISH) {
      refuse(event, frame, client, "This bridge only delivers events: " + frame.getString("type")
          + " is refused; register on svc.events or svc.events.<source_id>", false);
    } else {
      event.complete(true);
    }
  }

  /** Null when the frame may pass; otherwise the sentence to answer. */
  private String authenticate(JsonObject frame, String client) {
    if (!guard.hasGlobalToken()) {
      return null;
    }
    String token = token(frame);
    if (token != null && guard.isGlobalToken(token)) {
      return null;
    }
    if (token == null) {
      return "Authentication required: put the server's token in the frame's headers: {\"" + TOKEN_HEADER
          + "\": \"<token>\"}";
    }
    AuthThrottle throttle = guard.throttle();
    long retryAfter = throttle.retryAfterSeconds(client);
    if (retryAfter > 0) {
      throttle.throttled(client);
      return "Too many failed authentication attempts from this address; try again in " + retryAfter + " s";
    }
    if (throttle.failure(client)) {
      LOG.warn("Authentication throttle: {} locked out after {} refused credentials (event bridge)", client,
          throttle.burst());
    }
    return "Invalid token";
  }

  /** The token in the frame's headers; null when there is none (or the headers are not an object). */
  static String token(JsonObject frame) {
    try {
      JsonObject headers = Fields.optObject(frame, "headers");
      String token = headers == null ? null : Fields.optString(headers, TOKEN_HEADER, null);
      return token == null || token.isBlank() ? null : token;
    } catch (BadMessage e) {
      return null;
    }
  }

  /**
   * Answers an err frame with the reason, then lets the bridge drop the frame (it adds its own err
   * frame, "blocked by bridgeEvent handler"); {@code close}: the connection ends after them.
   */
  private void refuse(BridgeEvent event, JsonObject frame, String client, String reason, boolean close) {
    Object address = frame.getValue("address");
    LOG.warn("Event bridge refused a '{}' frame{} from {}: {}", printable(frame.getValue("type")),
        address == null ? "" : " for '" + printable(address) + "'", client, reason);
    NetSocket socket = event.socket();
    socket.write(errFrame(reason));
    event.complete(false);
    if (close) {
      closing.add(socket);
      socket.closeHandler(v -> closing.remove(socket));
      socket.end();
    }
  }

  /** An err frame: the length, then {@code {"type":"err","message":…}}. */
  static Buffer errFrame(String message) {
    Buffer json = new JsonObject().put("type", "err").put("message", message).toBuffer();
    return Buffer.buffer(4 + json.length()).appendInt(json.length()).appendBuffer(json);
  }

  private static String clientKey(NetSocket socket) {
    var remote = socket.remoteAddress();
    return AuthThrottle.key(remote == null ? null : remote.hostAddress());
  }

  /** A client's value fit for a log line: short, one line. */
  private static String printable(Object value) {
    String text = String.valueOf(value).replaceAll("\\p{Cntrl}", "?");
    return text.length() > 100 ? text.substring(0, 100) + "…" : text;
  }
}
