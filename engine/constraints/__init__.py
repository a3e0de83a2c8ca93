"""The constraint chain every candidate passes before it is ranked and put to the victim.

In: candidates and their check context. Out: the kept candidates and what each constraint dropped.
"""
