module github.com/runcode-go/runcode

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	go.uber.org/goleak v1.3.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)
