"""Children whose live form the API server makes differ from the rendered one, one template each:
what a user writes in the first hour, and what the server does to it.

- a Secret written with ``stringData`` (stored as ``data``, never returned);
- a Pod and a StatefulSet with volumes and mounts, the token automounted (admission adds a
  ``kube-api-access-…`` volume and a mount to each container), the StatefulSet with a
  ``volumeClaimTemplates`` claim (bound to a volume the test makes);
- a Service whose protocol, target port, session affinity and IP families the server defaults;
- a Deployment with quantities written another way than the server stores them (``0.5``,
  ``1024Mi``) and an int-or-string;
- a NetworkPolicy with a null and an empty selector, and an empty list;
- a ConfigMap with empty data; a CronJob; an Ingress.
"""

from __future__ import annotations

from typing import Any

SECRET = """\
apiVersion: v1
kind: Secret
metadata:
  name: {{ name }}-password
stringData:
  password: "{{ spec.value }}"
"""

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: {{ name }}-pod
spec:
  containers:
    - name: web
      image: nginx:1.27
      volumeMounts:
        - name: scratch
          mountPath: /scratch
  volumes:
    - name: scratch
      emptyDir: {}
"""

STATEFULSET = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: {{ name }}-db
spec:
  serviceName: {{ name }}-db
  replicas: 1
  selector:
    matchLabels: {app: "{{ name }}-db"}
  template:
    metadata:
      labels: {app: "{{ name }}-db"}
    spec:
      containers:
        - name: db
          image: mysql:8.4
          ports:
            - containerPort: 3306
          volumeMounts:
            - name: data
              mountPath: /var/lib/mysql
            - name: config
              mountPath: /etc/mysql/conf.d
      volumes:
        - name: config
          emptyDir: {}
  volumeClaimTemplates:
    - metadata:
        name: data
      spec:
        accessModes: [ReadWriteOnce]
        storageClassName: ""
        resources:
          requests:
            storage: 1Gi
"""

SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: {{ name }}-web
spec:
  selector:
    app: "{{ name }}-web"
  ports:
    - port: 80
"""

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ name }}-web
spec:
  replicas: 1
  selector:
    matchLabels: {app: "{{ name }}-web"}
  strategy:
    rollingUpdate:
      maxSurge: 1
      maxUnavailable: "25%"
  template:
    metadata:
      labels: {app: "{{ name }}-web"}
    spec:
      containers:
        - name: web
          image: nginx:1.27
          ports:
            - containerPort: 80
          resources:
            requests:
              cpu: 0.5
              memory: 1024Mi
            limits:
              cpu: "1.0"
              memory: 2048Mi
"""

NETWORKPOLICY = """\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ name }}-policy
spec:
  podSelector:
    matchLabels: null
  ingress:
    - from:
        - podSelector: {}
  egress: []
  policyTypes: [Ingress]
"""

CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}-empty
data: {}
"""

CRONJOB = """\
apiVersion: batch/v1
kind: CronJob
metadata:
  name: {{ name }}-backup
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
            - name: backup
              image: busybox:1.36
              command: [sh, -c, "echo backup"]
"""

INGRESS = """\
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ name }}-web
spec:
  rules:
    - http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service:
                name: {{ name }}-web
                port:
                  number: 80
"""

TEMPLATES = {
    "secret.yaml": SECRET,
    "pod.yaml": POD,
    "statefulset.yaml": STATEFULSET,
    "service.yaml": SERVICE,
    "deployment.yaml": DEPLOYMENT,
    "networkpolicy.yaml": NETWORKPOLICY,
    "configmap.yaml": CONFIGMAP,
    "cronjob.yaml": CRONJOB,
    "ingress.yaml": INGRESS,
}

# The resources (plural) the templates write: no write to any of them may follow Ready.
CHILD_RESOURCES = (
    "secrets",
    "pods",
    "statefulsets",
    "services",
    "deployments",
    "networkpolicies",
    "configmaps",
    "cronjobs",
    "ingresses",
)


def volume_for_claims(name: str) -> dict[str, Any]:
    """A static volume the StatefulSet's claim binds to (its class "" wants none provisioned)."""
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name},
        "spec": {
            "capacity": {"storage": "1Gi"},
            "accessModes": ["ReadWriteOnce"],
            "storageClassName": "",
            "hostPath": {"path": f"/tmp/{name}"},
        },
    }
