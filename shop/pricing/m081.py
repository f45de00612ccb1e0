import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_81_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-81-0'
    return [line.qty * factor for line in cart.lines]


def step_81_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-81-1'
    return [line.qty * factor for line in cart.lines]


def step_81_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-81-2'
    return [line.qty * factor for line in cart.lines]


def step_81_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-81-3'
    return [line.qty * factor for line in cart.lines]

