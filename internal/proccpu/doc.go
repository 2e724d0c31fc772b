// Package proccpu reads the CPU time this process has used, for the live lab's reports of
// its own overhead (the load generator's and each part's).
package proccpu
