# Course labs (docs/labs/): skeletons made from the real tree, the grader,
# and the check of every lab's cumulative skeleton (docs/labs/README.md).
#
#   make lab LAB=x [BRANCH=name | OUT=dir]   the skeleton of lab x (tools/mklab):
#                                            a directory (default build/labs/x)
#                                            or a git branch (one commit, no parents)
#   make grade LAB=x [SUBMISSION=dir|ref]    grade lab x in this tree (tools/grade):
#                                            points per test, a total, build/grade/x.json;
#                                            with SUBMISSION, only its lab regions, in a
#                                            clean copy of HEAD (build/grade-sub/x)
#   make autograder LAB=x                    Gradescope bundle build/autograder/x.zip
#                                            (tools/autograder; tools/grade-batch grades
#                                            a directory of submissions)
#   make check-labs [LABS="x y"]             every lab: full marks on the real tree; the
#                                            skeleton (cumulative, labs/ORDER) holds no
#                                            solution text, builds, fails every graded
#                                            test, fails no other test that the lab
#                                            solved passes, and the lab solved in it
#                                            scores full marks; and
#                                            tools/grade-batch on generated submissions
#                                            (LABS=grade-batch: that alone; tools/check-labs;
#                                            .ci/run runs it)

.PHONY: lab grade check-labs autograder

lab:
	@test -n '$(LAB)' || { echo "make lab: name a lab: make lab LAB=x (tools/mklab --list)" >&2; exit 2; }
	@tools/mklab '$(LAB)' $(if $(BRANCH),--branch '$(BRANCH)') $(if $(OUT),--out '$(OUT)' --force)

grade: deps-check
	@test -n '$(LAB)' || { echo "make grade: name a lab: make grade LAB=x (tools/mklab --list)" >&2; exit 2; }
	@tools/grade '$(LAB)' $(if $(SUBMISSION),--submission '$(SUBMISSION)')

autograder:
	@test -n '$(LAB)' || { echo "make autograder: name a lab: make autograder LAB=x (tools/mklab --list)" >&2; exit 2; }
	@tools/autograder '$(LAB)'

check-labs: deps-check
	@tools/check-labs $(LABS)
