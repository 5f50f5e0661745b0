"""What the engine shows: Prometheus metrics and probes (``observability``), the delegated
authentication and authorization of the metrics endpoint (``delegation``), JSON logs
(``logs``).  Named like controller-runtime's, so the dashboards people have keep working."""
