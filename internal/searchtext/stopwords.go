package searchtext

import "strings"

// IsStopWord reports whether the lower-case word w says nothing about which tool a task
// needs ("the", "please", "my"), so that a query drops it. Words that name an action or
// a thing are never stop words, however common ("make", "new", "get", "open").
func IsStopWord(w string) bool { return stopWords[w] }

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but of to in on at by for from with into onto about as
		is are be been being was were am it its this that these those i me my mine we our ours us
		you your yours he him his she her they them their there here what which who whom whose when where
		why how all any some each every can could should would will shall may might must do does did done
		doing have has had having not no so if then than too very just please want wanted need needs like
		also let lets using use used via one ones s t ll ve re d m don didn doesn isn aren wasn weren won hasn haven hadn wouldn couldn shouldn
		ok okay hey thanks thank really actually quickly quick right now still already again
		above below over under between through across during within without inside upon off up down out`) {
		m[w] = true
	}
	return m
}()
