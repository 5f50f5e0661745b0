// convwebhook: the webapp example's conversion (examples/webapp/kind.yaml) as a Go developer
// writes a CRD conversion webhook by hand, for the benchmark to set beside Stencil's.
//
// It serves HTTPS POST /convert, a ConversionReview of apiextensions.k8s.io/v1 (the upstream
// types), and converts each object between examples.stencil.dev/v1 (the hub: spec.image,
// replicas, port, tier) and v1alpha1 (spec.repository, tag, instances, container.port) with
// unstructured maps (convert.go).  What the other version cannot hold is kept in the annotation
// stencil.dev/conversion-data, written as Stencil writes it, so that both give the same objects.
//
//	convwebhook -cert tls.crt -key tls.key [-addr 127.0.0.1:0]
//
// Once it listens it prints "ready https://HOST:PORT" on stdout.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	cert := flag.String("cert", "", "serving certificate (PEM)")
	key := flag.String("key", "", "its private key (PEM)")
	flag.Parse()
	if *cert == "" || *key == "" {
		log.Fatal("-cert and -key are required")
	}
	listener, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/convert", serveConvert)
	fmt.Printf("ready https://%s\n", listener.Addr())
	os.Stdout.Sync()
	log.Fatal((&http.Server{Handler: mux}).ServeTLS(listener, *cert, *key))
}

func serveConvert(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST a ConversionReview", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var review apiextensionsv1.ConversionReview
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		http.Error(w, fmt.Sprintf("not a ConversionReview: %v", err), http.StatusBadRequest)
		return
	}
	response := &apiextensionsv1.ConversionResponse{UID: review.Request.UID}
	converted, err := convertAll(review.Request.Objects, review.Request.DesiredAPIVersion)
	if err != nil {
		response.Result = metav1.Status{Status: metav1.StatusFailure, Message: err.Error()}
	} else {
		response.ConvertedObjects = converted
		response.Result = metav1.Status{Status: metav1.StatusSuccess}
	}
	review.Request, review.Response = nil, response
	out, err := json.Marshal(&review)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(out))) // not chunked
	w.Write(out)
}

// convertAll converts every object, or fails them all: the API server takes all or none.
func convertAll(objects []runtime.RawExtension, desired string) ([]runtime.RawExtension, error) {
	converted := make([]runtime.RawExtension, 0, len(objects))
	for _, raw := range objects {
		decoder := json.NewDecoder(bytes.NewReader(raw.Raw))
		decoder.UseNumber() // numbers come back as they were written
		var obj map[string]any
		if err := decoder.Decode(&obj); err != nil {
			return nil, fmt.Errorf("an object is not JSON: %v", err)
		}
		out, err := convert(obj, desired)
		if err != nil {
			return nil, err
		}
		encoded, err := json.Marshal(out)
		if err != nil {
			return nil, err
		}
		converted = append(converted, runtime.RawExtension{Raw: encoded})
	}
	return converted, nil
}
