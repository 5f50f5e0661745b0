// The floor in Go: the fewest requests that converge a workload, sent by client-go.
//
// The Python floor (bench/floor.py) is a Python client sharing two cores with the API
// server and etcd, so "Stencil is close to the floor" could mean only that Stencil is as
// fast as a Python client.  This floor sends the same requests with the client a Go
// controller would use, so the Python side's own cost shows.  It renders nothing: the
// Python side renders every parent's children and the status Stencil would write once
// they are healthy (bench/floorfiles.py) into one JSON file, and this program
//
//   - keeps shared informers (client-go's dynamic SharedInformerFactory) of the parents and
//     of each child resource, the children selected by Stencil's managed-by label;
//   - creates each parent's children by create-only server-side applies (field manager
//     "stencil", a resourceVersion no object can have, so an existing child is a 409);
//   - writes the parent's status once, by one JSON patch of the status subresource, when
//     every child is in the cache and ready (its ready condition True at its generation);
//
// over `--workers` goroutines, as the Python floor uses as many threads.  It prints
// "ready" once its caches are synced, and runs until SIGTERM.
//
//	gofloor --kubeconfig K --input floor.json --namespace NS [--workers 4]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
)

const (
	fieldManager = "stencil"
	managedBy    = "app.kubernetes.io/managed-by=stencil"
	ownerIndex   = "owner"
	uidIndex     = "uid"
)

// Resource is a group/version/resource, and for a child the condition that makes it ready
// ("" when existing is enough, as for a ConfigMap).
type Resource struct {
	Group          string `json:"group"`
	Version        string `json:"version"`
	Resource       string `json:"resource"`
	ReadyCondition string `json:"readyCondition"`
}

func (r Resource) gvr() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}
}

// Child is one rendered child: its resource (an index into Input.Children), name and the
// body of its apply, as the Python side renders it.
type Child struct {
	Resource int             `json:"resource"`
	Name     string          `json:"name"`
	Object   json.RawMessage `json:"object"`
}

// Rendered is what one parent needs: its children and the status to write once they are ready.
type Rendered struct {
	Children []Child         `json:"children"`
	Status   json.RawMessage `json:"status"`
}

// Input is the file the Python side writes.  The placeholders stand for what only the
// cluster knows: the parent's uid (in the children's owner references), the time the
// status is written, and the parent's generation (a JSON number in the status).
type Input struct {
	Parent     Resource            `json:"parent"`
	Children   []Resource          `json:"children"`
	UID        string              `json:"uid"`
	Now        string              `json:"now"`
	Generation string              `json:"generation"`
	Parents    map[string]Rendered `json:"parents"`
}

type task struct {
	create bool // create the children of the parent named key; else finish the parent whose uid is key
	key    string
}

type floor struct {
	input     Input
	namespace string
	client    dynamic.Interface
	parents   cache.SharedIndexInformer
	children  []cache.SharedIndexInformer
	queue     workqueue.TypedInterface[task]
	mu        sync.Mutex
	created   map[string]bool // parent uids whose children were applied
	finished  map[string]bool // parent uids whose status was written
	answers   map[string][]*unstructured.Unstructured
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the account to run as")
	inputPath := flag.String("input", "", "the JSON file the Python side rendered")
	namespace := flag.String("namespace", "", "the parents' namespace")
	workers := flag.Int("workers", 4, "parents handled at a time")
	flag.Parse()
	if err := run(*kubeconfig, *inputPath, *namespace, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "gofloor:", err)
		os.Exit(1)
	}
}

func run(kubeconfig, inputPath, namespace string, workers int) error {
	raw, err := os.ReadFile(inputPath)
	if err != nil {
		return err
	}
	var input Input
	if err := json.Unmarshal(raw, &input); err != nil {
		return fmt.Errorf("%s: %w", inputPath, err)
	}
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	config.QPS = -1 // no client-side rate limit: the Python floor and Stencil have none
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	f := newFloor(input, namespace, client)
	parentFactory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, 0, namespace, nil)
	childFactory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(
		client, 0, namespace, func(o *metav1.ListOptions) { o.LabelSelector = managedBy })
	if err := f.informers(parentFactory, childFactory); err != nil {
		return err
	}
	parentFactory.Start(ctx.Done())
	childFactory.Start(ctx.Done())
	syncCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for _, synced := range []map[schema.GroupVersionResource]bool{
		parentFactory.WaitForCacheSync(syncCtx.Done()), childFactory.WaitForCacheSync(syncCtx.Done()),
	} {
		for resource, ok := range synced {
			if !ok {
				return fmt.Errorf("the cache of %s did not sync", resource)
			}
		}
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f.next(ctx) {
			}
		}()
	}
	fmt.Println("ready")
	<-ctx.Done()
	f.queue.ShutDown()
	wg.Wait()
	return nil
}

func newFloor(input Input, namespace string, client dynamic.Interface) *floor {
	return &floor{
		input:     input,
		namespace: namespace,
		client:    client,
		queue:     workqueue.NewTyped[task](),
		created:   map[string]bool{},
		finished:  map[string]bool{},
		answers:   map[string][]*unstructured.Unstructured{},
	}
}

func (f *floor) informers(parents, children dynamicinformer.DynamicSharedInformerFactory) error {
	f.parents = parents.ForResource(f.input.Parent.gvr()).Informer()
	err := f.parents.AddIndexers(cache.Indexers{uidIndex: func(o any) ([]string, error) {
		return []string{string(o.(*unstructured.Unstructured).GetUID())}, nil
	}})
	if err != nil {
		return err
	}
	if _, err := f.parents.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    f.onParent,
		UpdateFunc: func(_, o any) { f.onParent(o) },
	}); err != nil {
		return err
	}
	for _, resource := range f.input.Children {
		informer := children.ForResource(resource.gvr()).Informer()
		err := informer.AddIndexers(cache.Indexers{ownerIndex: func(o any) ([]string, error) {
			var uids []string
			for _, ref := range o.(*unstructured.Unstructured).GetOwnerReferences() {
				uids = append(uids, string(ref.UID))
			}
			return uids, nil
		}})
		if err != nil {
			return err
		}
		if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    f.onChild,
			UpdateFunc: func(_, o any) { f.onChild(o) },
		}); err != nil {
			return err
		}
		f.children = append(f.children, informer)
	}
	return nil
}

func (f *floor) onParent(o any) {
	parent := o.(*unstructured.Unstructured)
	uid := string(parent.GetUID())
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.created[uid] {
		return
	}
	f.created[uid] = true
	if ready(parent, "Ready", false) {
		f.finished[uid] = true // converged before a restart: nothing to send
		return
	}
	f.queue.Add(task{create: true, key: parent.GetName()})
}

func (f *floor) onChild(o any) {
	for _, ref := range o.(*unstructured.Unstructured).GetOwnerReferences() {
		f.mu.Lock()
		done := f.finished[string(ref.UID)]
		f.mu.Unlock()
		if !done {
			f.queue.Add(task{key: string(ref.UID)})
		}
	}
}

// next handles one task; false once the queue is shut down.
func (f *floor) next(ctx context.Context) bool {
	t, shutdown := f.queue.Get()
	if shutdown {
		return false
	}
	defer f.queue.Done(t)
	var err error
	if t.create {
		err = f.create(ctx, t.key)
	} else {
		err = f.finish(ctx, t.key, nil)
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(os.Stderr, "gofloor: %v\n", err)
	}
	return true
}

func (f *floor) create(ctx context.Context, name string) error {
	o, exists, err := f.parents.GetIndexer().GetByKey(f.namespace + "/" + name)
	if err != nil || !exists {
		return err
	}
	parent := o.(*unstructured.Unstructured)
	rendered, ok := f.input.Parents[name]
	if !ok {
		return fmt.Errorf("%s: not in the input file", name)
	}
	uid := string(parent.GetUID())
	force := true
	var answers []*unstructured.Unstructured
	for _, child := range rendered.Children {
		body := bytes.ReplaceAll(child.Object, []byte(f.input.UID), []byte(uid))
		resource := f.input.Children[child.Resource].gvr()
		answer, err := f.client.Resource(resource).Namespace(f.namespace).Patch(
			ctx, child.Name, types.ApplyPatchType, body,
			metav1.PatchOptions{FieldManager: fieldManager, Force: &force})
		if apierrors.IsConflict(err) {
			continue // it exists already
		}
		if err != nil {
			return fmt.Errorf("apply %s %s: %w", resource.Resource, child.Name, err)
		}
		answers = append(answers, answer)
	}
	f.mu.Lock()
	f.answers[uid] = answers
	f.mu.Unlock()
	return f.finish(ctx, uid, nil)
}

// finish writes the parent's status once, when every child is there and ready.  The
// children are read from the caches, or from the answers of their applies when the watch
// has not brought them yet.  fresh is a parent read after a conflict, or nil.
func (f *floor) finish(ctx context.Context, uid string, fresh *unstructured.Unstructured) error {
	parent := fresh
	if parent == nil {
		found, err := f.parents.GetIndexer().ByIndex(uidIndex, uid)
		if err != nil || len(found) == 0 {
			return err
		}
		parent = found[0].(*unstructured.Unstructured)
	}
	rendered, ok := f.input.Parents[parent.GetName()]
	if !ok {
		return nil
	}
	f.mu.Lock()
	answers := f.answers[uid]
	done := f.finished[uid]
	f.mu.Unlock()
	if done {
		return nil
	}
	for _, child := range rendered.Children {
		if !f.childReady(child, uid, answers) {
			return nil
		}
	}
	f.mu.Lock()
	if f.finished[uid] {
		f.mu.Unlock()
		return nil
	}
	f.finished[uid] = true
	delete(f.answers, uid)
	f.mu.Unlock()
	status := bytes.ReplaceAll(rendered.Status, []byte(f.input.Now), []byte(time.Now().UTC().Format(time.RFC3339)))
	generation := strconv.FormatInt(parent.GetGeneration(), 10)
	status = bytes.ReplaceAll(status, []byte(f.input.Generation), []byte(generation))
	ops, err := json.Marshal([]map[string]any{
		{"op": "replace", "path": "/metadata/resourceVersion", "value": parent.GetResourceVersion()},
		{"op": "add", "path": "/status", "value": json.RawMessage(status)},
	})
	if err != nil {
		return err
	}
	resource := f.client.Resource(f.input.Parent.gvr()).Namespace(f.namespace)
	_, err = resource.Patch(ctx, parent.GetName(), types.JSONPatchType, ops,
		metav1.PatchOptions{FieldManager: fieldManager}, "status")
	if apierrors.IsConflict(err) {
		// The parent changed since it was read: read it again and write once more.
		current, err := resource.Get(ctx, parent.GetName(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		f.mu.Lock()
		f.finished[uid] = false
		f.answers[uid] = answers
		f.mu.Unlock()
		return f.finish(ctx, uid, current)
	}
	return err
}

func (f *floor) childReady(child Child, uid string, answers []*unstructured.Unstructured) bool {
	resource := f.input.Children[child.Resource]
	o, exists, _ := f.children[child.Resource].GetIndexer().GetByKey(f.namespace + "/" + child.Name)
	if exists && ownedBy(o.(*unstructured.Unstructured), uid) {
		return ready(o.(*unstructured.Unstructured), resource.ReadyCondition, true)
	}
	for _, answer := range answers {
		if answer.GetName() == child.Name && answer.GroupVersionKind().GroupVersion() == resource.gvr().GroupVersion() {
			return ready(answer, resource.ReadyCondition, true)
		}
	}
	return false
}

func ownedBy(o *unstructured.Unstructured, uid string) bool {
	for _, ref := range o.GetOwnerReferences() {
		if string(ref.UID) == uid {
			return true
		}
	}
	return false
}

// ready: condition is "" (existing is enough), or True, and where the object reports the
// generation its controller saw (atGeneration), about its current generation.
func ready(o *unstructured.Unstructured, condition string, atGeneration bool) bool {
	if condition == "" {
		return true
	}
	if seen, found, _ := unstructured.NestedInt64(o.Object, "status", "observedGeneration"); atGeneration && found && seen < o.GetGeneration() {
		return false
	}
	conditions, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range conditions {
		entry, ok := c.(map[string]any)
		if ok && entry["type"] == condition {
			return entry["status"] == "True"
		}
	}
	return false
}
