import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_70_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-70-0'
    return [line.qty * factor for line in cart.lines]


def step_70_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-70-1'
    return [line.qty * factor for line in cart.lines]


def step_70_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-70-2'
    return [line.qty * factor for line in cart.lines]


def step_70_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-70-3'
    return [line.qty * factor for line in cart.lines]

