"""Sentences the shipped model pre-trained on, quoted on purpose: the leak tests plant them to show that their
checks fail on a sentence the model read (``test_app_sentences`` leaves this file out of the app's sentences)."""

BROWN_OPENING = (
    "The Fulton County Grand Jury said Friday an investigation of Atlanta's recent primary election produced "
    '"no evidence" that any irregularities took place.'
)
EMMA_OPENING = (
    "Emma Woodhouse, handsome, clever, and rich, with a comfortable home and happy disposition, seemed to unite "
    "some of the best blessings of existence; and had lived nearly twenty-one years in the world with very little "
    "to distress or vex her."
)
EMMA_WOODHOUSE = "Mr. Woodhouse was fond of society in his own way."
SANGUO_OPENING = ("滚滚长江东逝水，浪花淘尽英雄。", "是非成败转头空。")  # the second is too short to be looked up
SANGUO_DONG_ZHUO = "且说董卓字仲颖，陇西临洮人也，官拜河东太守，自来骄傲。"
