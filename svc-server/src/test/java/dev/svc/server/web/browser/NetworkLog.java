package dev.svc.server.web.browser;

import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every request the browser's pages made, rebuilt from Chrome's performance log (the DevTools
 * Network events chromedriver records): URL, method, resource type, the headers really sent
 * (cookies included) and the response status.
 */
final class NetworkLog {

  /** One request as the browser made it; headers and status are null until their events arrive. */
  static final class Request {
    final String id;
    final String url;
    final String method;
    final String type;
    Map<String, String> sentHeaders;
    Integer status;
    String failure;

    Request(String id, String url, String method, String type) {
      this.id = id;
      this.url = url;
      this.method = method;
      this.type = type;
    }

    /** A header as sent on the wire (case-insensitive name), or null. */
    String sentHeader(String name) {
      if (sentHeaders == null) {
        return null;
      }
      return sentHeaders.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
          .map(Map.Entry::getValue).findFirst().orElse(null);
    }

    @Override
    public String toString() {
      return method + " " + url + " (" + type + ", status " + status + (failure == null ? "" : ", " + failure) + ")";
    }
  }

  private final List<Request> requests = new ArrayList<>();
  private final Map<String, Request> byId = new LinkedHashMap<>();
  private final Map<String, Map<String, String>> earlyHeaders = new LinkedHashMap<>();

  /** Adds one performance-log entry (its JSON message); entries of other domains are ignored. */
  synchronized void add(String entryMessage) {
    JsonObject message = new JsonObject(entryMessage).getJsonObject("message", new JsonObject());
    String method = message.getString("method", "");
    JsonObject params = message.getJsonObject("params", new JsonObject());
    String id = params.getString("requestId");
    switch (method) {
      case "Network.requestWillBeSent" -> {
        JsonObject request = params.getJsonObject("request", new JsonObject());
        String url = request.getString("url", "") + request.getString("urlFragment", "");
        // a redirect reuses the request id: the earlier hop stays recorded as its own request
        Request r = new Request(id, url, request.getString("method", "GET"), params.getString("type", "Other"));
        JsonObject redirect = params.getJsonObject("redirectResponse");
        Request previous = byId.get(id);
        if (redirect != null && previous != null && previous.status == null) {
          previous.status = redirect.getInteger("status");
        }
        r.sentHeaders = earlyHeaders.remove(id);
        requests.add(r);
        byId.put(id, r);
      }
      case "Network.requestWillBeSentExtraInfo" -> {
        Map<String, String> headers = new LinkedHashMap<>();
        params.getJsonObject("headers", new JsonObject()).forEach(e -> headers.put(e.getKey(), String.valueOf(e.getValue())));
        Request r = byId.get(id);
        // the extra-info event may come before or after requestWillBeSent
        if (r != null && r.sentHeaders == null) {
          r.sentHeaders = headers;
        } else {
          earlyHeaders.put(id, headers);
        }
      }
      case "Network.responseReceived" -> {
        Request r = byId.get(id);
        if (r != null) {
          r.status = params.getJsonObject("response", new JsonObject()).getInteger("status");
        }
      }
      case "Network.loadingFailed" -> {
        Request r = byId.get(id);
        if (r != null) {
          String blocked = params.getString("blockedReason");
          r.failure = params.getString("errorText", "failed") + (blocked == null ? "" : " blocked: " + blocked);
        }
      }
      case "Network.webSocketCreated" -> requests.add(new Request(id, params.getString("url", ""), "GET", "WebSocket"));
      default -> {
        // other DevTools events say nothing about where the browser connects
      }
    }
  }

  synchronized List<Request> all() {
    return List.copyOf(requests);
  }

  synchronized List<Request> since(int index) {
    return List.copyOf(requests.subList(Math.min(index, requests.size()), requests.size()));
  }

  synchronized int size() {
    return requests.size();
  }

  /** The origin of a URL (scheme://host:port, lower case), or the scheme alone for data:, blob:, about:. */
  static String origin(String url) {
    String lower = url.toLowerCase(Locale.ROOT);
    int scheme = lower.indexOf("://");
    if (scheme < 0) {
      int colon = lower.indexOf(':');
      return colon < 0 ? lower : lower.substring(0, colon + 1);
    }
    int end = lower.indexOf('/', scheme + 3);
    return end < 0 ? lower : lower.substring(0, end);
  }
}
