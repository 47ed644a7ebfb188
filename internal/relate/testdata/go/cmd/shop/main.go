package main

import (
	"fmt"
	"os"

	"example.com/shop/store"
)

func main() {
	st := store.New()
	c := store.NewCache(st)
	v, err := c.Lookup("a")
	if err != nil {
		fail(err)
	}
	fmt.Println(v)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
