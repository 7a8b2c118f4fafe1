package dev.svc.engines.lifecycle;

/**
 * An image reference split the way the pull API wants it: repository and tag (or digest), and
 * the registry the repository lives in ({@code docker.io} when the name has no registry host).
 */
record ImageRef(String repository, String tag, String registry) {

  static ImageRef parse(String image) {
    String name = image.strip();
    int at = name.indexOf('@');
    String repository;
    String tag;
    if (at >= 0) {
      repository = name.substring(0, at);
      tag = name.substring(at + 1);
    } else {
      int colon = name.lastIndexOf(':');
      int slash = name.lastIndexOf('/');
      if (colon > slash) {
        repository = name.substring(0, colon);
        tag = name.substring(colon + 1);
      } else {
        repository = name;
        tag = "latest";
      }
    }
    int firstSlash = repository.indexOf('/');
    String first = firstSlash < 0 ? "" : repository.substring(0, firstSlash);
    boolean hasHost = first.contains(".") || first.contains(":") || first.equals("localhost");
    return new ImageRef(repository, tag, hasHost ? first : "docker.io");
  }

  /** The reference as {@code docker pull} takes it. */
  String reference() {
    return repository + (tag.contains(":") ? "@" : ":") + tag;
  }
}
