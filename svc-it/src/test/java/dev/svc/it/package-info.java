/** End-to-end tests: a real `svc web` and real `svc-agent` daemons, as separate processes, on 127.0.0.1. */
package dev.svc.it;
